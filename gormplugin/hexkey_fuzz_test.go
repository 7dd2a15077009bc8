package gormplugin_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"gorm.io/gorm"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

// FuzzInlineStringKey checks the plugin's rule for an inline string
// condition on an ObjectID-keyed model, in dry runs on SQLite: a string of
// 24 hex digits (not all zeros) becomes the key, passed as an argument and
// absent from the SQL; 24 zeros fail with types.ErrZeroID; any other string
// gives exactly the statement GORM gives without the plugin.
func FuzzInlineStringKey(f *testing.F) {
	for _, s := range []string{
		"65a1f0c2e4b0a1b2c3d4e5f6", "65A1F0C2E4B0A1B2C3D4E5F6", "000000000000000000000000",
		"65a1f0c2e4b0a1b2c3d4e5f", "65a1f0c2e4b0a1b2c3d4e5f6a", "zza1f0c2e4b0a1b2c3d4e5f6",
		"abc", "12", "", " ", "name = 'x'", "1=1", "65a1f0c2e4b0a1b2c3d4e5f6 ",
	} {
		f.Add(s)
	}
	with := openDB(f, dialects[0], gormplugin.New(gormplugin.WithNode(1))).Session(&gorm.Session{DryRun: true})
	without := openDB(f, dialects[0], nil).Session(&gorm.Session{DryRun: true})
	f.Fuzz(func(t *testing.T, s string) {
		got := with.First(&Doc{}, s)
		id, perr := types.ObjectIDFromHex(s)
		switch {
		case perr == nil && len(s) == 24 && id.IsZero():
			if !errors.Is(got.Error, types.ErrZeroID) {
				t.Fatalf("First(%q) err = %v, want ErrZeroID", s, got.Error)
			}
		case perr == nil && len(s) == 24:
			if got.Error != nil {
				t.Fatalf("First(%q) err = %v", s, got.Error)
			}
			if len(got.Statement.Vars) == 0 || got.Statement.Vars[0] != id {
				t.Fatalf("First(%q) vars = %v, want the key %s first", s, got.Statement.Vars, id)
			}
			if strings.Contains(got.Statement.SQL.String(), s) {
				t.Fatalf("First(%q) runs the string as SQL: %s", s, got.Statement.SQL.String())
			}
		default:
			want := without.First(&Doc{}, s)
			gotSQL := strings.ReplaceAll(got.Statement.SQL.String(), got.Statement.Table, "docs")
			wantSQL := strings.ReplaceAll(want.Statement.SQL.String(), want.Statement.Table, "docs")
			if gotSQL != wantSQL ||
				!reflect.DeepEqual(got.Statement.Vars, want.Statement.Vars) ||
				(got.Error == nil) != (want.Error == nil) {
				t.Fatalf("First(%q) = %q %v %v; without the plugin %q %v %v", s,
					gotSQL, got.Statement.Vars, got.Error, wantSQL, want.Statement.Vars, want.Error)
			}
		}
	})
}
