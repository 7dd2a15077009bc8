package parse_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/idkit-go/idkit/cmd/idkit/internal/parse"
)

func TestParseID(t *testing.T) {
	tests := []struct {
		in   string
		kind parse.Kind
		want string
	}{
		{"632c6d93d65f74baeb22a2c9", parse.KindObjectID, "632c6d93d65f74baeb22a2c9"},
		{"632C6D93D65F74BAEB22A2C9", parse.KindObjectID, "632c6d93d65f74baeb22a2c9"},
		{"  4df2dcec2cdcd20936a8b817\t", parse.KindObjectID, "4df2dcec2cdcd20936a8b817"},
		{`ObjectId("633304ee48d18c808c6bb23a")`, parse.KindObjectID, "633304ee48d18c808c6bb23a"},
		{`ObjectID('633304ee48d18c808c6bb23a')`, parse.KindObjectID, "633304ee48d18c808c6bb23a"},
		{`{"$oid":"5fd049327fbb28868f4660a5"}`, parse.KindObjectID, "5fd049327fbb28868f4660a5"},
		{`{ "$oid" : "5fd049327fbb28868f4660a5" }`, parse.KindObjectID, "5fd049327fbb28868f4660a5"},
		{`"5fd049327fbb28868f4660a5"`, parse.KindObjectID, "5fd049327fbb28868f4660a5"},
		{"111111111111111111111111", parse.KindObjectID, "111111111111111111111111"}, // 24 digits: never a Snowflake
		{"1541815603606036480", parse.KindSnowflake, "1541815603606036480"},
		{`NumberLong("175928847299117063")`, parse.KindSnowflake, "175928847299117063"},
		{`Long(175928847299117063)`, parse.KindSnowflake, "175928847299117063"},
		{`{"$numberLong":"42"}`, parse.KindSnowflake, "42"},
		{"'42'", parse.KindSnowflake, "42"},
		{"0", parse.KindSnowflake, "0"},
		{"007", parse.KindSnowflake, "7"},
		{"9223372036854775807", parse.KindSnowflake, "9223372036854775807"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			id, err := parse.ParseID(tt.in)
			if err != nil {
				t.Fatalf("ParseID(%q): %v", tt.in, err)
			}
			if id.Kind != tt.kind || id.String() != tt.want {
				t.Errorf("ParseID(%q) = %v %s, want %v %s", tt.in, id.Kind, id, tt.kind, tt.want)
			}
		})
	}
}

func TestParseIDErrors(t *testing.T) {
	tests := []struct{ in, msg string }{
		{"", "empty"},
		{"   ", "empty"},
		{"632c6d93d65f74baeb22a2cg", `"g" is not a hex digit`},
		{"632c6d93d65f74baeb22a2c", "23 hex digits"},
		{"632c6d93d65f74baeb22a2c90", "25 hex digits"},
		{"9223372036854775808", "above 9223372036854775807"},
		{"12345678901234567890", "20 digits"},
		{"123456789012345678901", "21 digits"},
		{"-1", "is negative, and IDs never are"},
		{"-", "neither"},
		{"+1", "neither"},
		{"1e5", "3 hex digits, an ObjectID has 24"},
		{"0x1f", "neither"},
		{"ObjectId(", "neither"},
		{`ObjectId("632c6d93d65f74baeb22a2c9"`, "neither"},
		{"日本", "neither"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			id, err := parse.ParseID(tt.in)
			if !errors.Is(err, parse.ErrID) {
				t.Fatalf("ParseID(%q) = %v, %v; want ErrID", tt.in, id, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("ParseID(%q) error %q does not say %q", tt.in, err, tt.msg)
			}
			if id != (parse.ID{}) {
				t.Errorf("ParseID(%q) returned %v with its error", tt.in, id)
			}
		})
	}
}

func TestParseKind(t *testing.T) {
	for in, want := range map[string]parse.Kind{"objectid": parse.KindObjectID, "OID": parse.KindObjectID,
		"snowflake": parse.KindSnowflake, "Sf": parse.KindSnowflake, "UUID": parse.KindUUID} {
		if k, err := parse.ParseKind(in); err != nil || k != want {
			t.Errorf("ParseKind(%q) = %v, %v; want %v", in, k, err, want)
		}
	}
	if _, err := parse.ParseKind("ulid"); !errors.Is(err, parse.ErrKind) {
		t.Errorf("ParseKind(ulid) error = %v, want ErrKind", err)
	}
	if s := parse.Kind(9).String(); s != "Kind(9)" {
		t.Errorf("Kind(9).String() = %q", s)
	}
}

// FuzzParseID checks that ParseID never panics, that every failure wraps
// ErrID, and that a success round-trips through the canonical form.
func FuzzParseID(f *testing.F) {
	for _, s := range []string{"632c6d93d65f74baeb22a2c9", "1541815603606036480", `ObjectId("4df2dcec2cdcd20936a8b817")`,
		`{"$oid":"5fd049327fbb28868f4660a5"}`, "9223372036854775808", "", "0", "'1'", `NumberLong("1")`, "-1",
		"0190a3c2-5b7e-7def-8a12-3456789abcde", `UUID("0190A3C25B7E7DEF8A123456789ABCDE")`, `{"$uuid":"0190a3c2-5b7e-7def-8a12-3456789abcde"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := parse.ParseID(s)
		if err != nil {
			if !errors.Is(err, parse.ErrID) {
				t.Fatalf("ParseID(%q) error %v does not wrap ErrID", s, err)
			}
			return
		}
		again, err := parse.ParseID(id.String())
		if err != nil || again != id {
			t.Fatalf("ParseID(%q) = %v; its String %q parses to %v, %v", s, id, id.String(), again, err)
		}
		if id.Kind == parse.KindSnowflake && id.Snowflake < 0 {
			t.Fatalf("ParseID(%q) = negative Snowflake %d", s, id.Snowflake)
		}
	})
}

func ExampleParseID() {
	for _, s := range []string{"632c6d93d65f74baeb22a2c9", `ObjectId("4df2dcec2cdcd20936a8b817")`, "1541815603606036480"} {
		id, err := parse.ParseID(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		if id.Kind == parse.KindObjectID {
			fmt.Println(id.Kind, id, id.ObjectID.Timestamp().Format(time.RFC3339))
		} else {
			fmt.Println(id.Kind, id)
		}
	}
	_, err := parse.ParseID("632c6d93d65f74baeb22a2cg")
	fmt.Println(err)
	// Output:
	// objectid 632c6d93d65f74baeb22a2c9 2022-09-22T14:13:39Z
	// objectid 4df2dcec2cdcd20936a8b817 2011-06-11T03:11:40Z
	// snowflake 1541815603606036480
	// not an ID: "632c6d93d65f74baeb22a2cg" has 24 characters but "g" is not a hex digit
}
