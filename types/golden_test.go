package types_test

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/idkit-go/idkit/types"
)

type golden struct {
	ObjectID struct {
		Valid []struct {
			Hex           string `json:"hex"`
			Source        string `json:"source"`
			Unix          int64  `json:"unix"`
			Time          string `json:"time"`
			ProcessUnique string `json:"process_unique"`
			Counter       uint32 `json:"counter"`
		} `json:"valid"`
		Invalid []struct {
			Input string `json:"input"`
			Why   string `json:"why"`
		} `json:"invalid"`
	} `json:"objectid"`
	Snowflake struct {
		Valid []struct {
			Text  string `json:"text"`
			Value int64  `json:"value"`
		} `json:"valid"`
		Invalid []struct {
			Input string `json:"input"`
			Why   string `json:"why"`
		} `json:"invalid"`
	} `json:"snowflake"`
}

func loadGolden(t testing.TB) golden {
	t.Helper()
	data, err := os.ReadFile("../testdata/types_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.ObjectID.Valid) == 0 || len(g.ObjectID.Invalid) == 0 || len(g.Snowflake.Valid) == 0 || len(g.Snowflake.Invalid) == 0 {
		t.Fatal("golden file has an empty section")
	}
	return g
}

func TestGoldenObjectIDs(t *testing.T) {
	g := loadGolden(t)
	for _, v := range g.ObjectID.Valid {
		t.Run(v.Hex, func(t *testing.T) {
			id, err := types.ParseObjectID(v.Hex)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := time.Parse(time.RFC3339, v.Time)
			if got := id.Timestamp(); !got.Equal(want) || got.Unix() != v.Unix {
				t.Errorf("%s: Timestamp = %v, want %v (%d)", v.Source, got, want, v.Unix)
			}
			pu := id.ProcessUnique()
			if got := hex.EncodeToString(pu[:]); got != v.ProcessUnique {
				t.Errorf("ProcessUnique = %s, want %s", got, v.ProcessUnique)
			}
			if got := id.Counter(); got != v.Counter {
				t.Errorf("Counter = %d, want %d", got, v.Counter)
			}
			if id.Hex() != v.Hex || id.String() != v.Hex {
				t.Errorf("Hex = %s, want %s", id.Hex(), v.Hex)
			}
		})
	}
	for _, v := range g.ObjectID.Invalid {
		t.Run("invalid/"+v.Why, func(t *testing.T) {
			id, err := types.ParseObjectID(v.Input)
			if !errors.Is(err, types.ErrInvalidObjectID) {
				t.Fatalf("ParseObjectID(%q) err = %v, want ErrInvalidObjectID", v.Input, err)
			}
			if !id.IsZero() {
				t.Errorf("ParseObjectID(%q) = %v on error, want zero", v.Input, id)
			}
			var scanned types.ObjectID
			if err := scanned.Scan(v.Input); err == nil {
				t.Errorf("Scan(%q) accepted invalid input", v.Input)
			}
		})
	}
}

func TestGoldenSnowflakes(t *testing.T) {
	g := loadGolden(t)
	for _, v := range g.Snowflake.Valid {
		s, err := types.ParseSnowflake(v.Text)
		if err != nil || int64(s) != v.Value {
			t.Errorf("ParseSnowflake(%q) = %d, %v; want %d", v.Text, s, err, v.Value)
		}
	}
	for _, v := range g.Snowflake.Invalid {
		t.Run("invalid/"+v.Why, func(t *testing.T) {
			if s, err := types.ParseSnowflake(v.Input); !errors.Is(err, types.ErrInvalidSnowflake) || s != 0 {
				t.Errorf("ParseSnowflake(%q) = %d, %v; want 0, ErrInvalidSnowflake", v.Input, s, err)
			}
		})
	}
}
