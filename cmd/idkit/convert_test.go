package main_test

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

func TestConvertForms(t *testing.T) {
	const oid = "632c6d93d65f74baeb22a2c9"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-to", "hex", oid}, oid + "\n"},
		{[]string{"-to", "base64", oid}, "Yyxtk9ZfdLrrIqLJ\n"},
		{[]string{"-to", "base64url", "ffffffffffffffffffffffff"}, "________________\n"},
		{[]string{"-to", "base64", "ffffffffffffffffffffffff"}, "////////////////\n"},
		{[]string{"-to", "dec", oid}, "30692726173441410707134522057\n"},
		{[]string{"-to", "dec", "ffffffffffffffffffffffff"}, "79228162514264337593543950335\n"},
		{[]string{"-from", "dec", "-kind", "objectid", "-to", "hex", "30692726173441410707134522057"}, oid + "\n"},
		{[]string{"-from", "base64url", "-to", "hex", "________________"}, "ffffffffffffffffffffffff\n"},
		{[]string{"-to", "hex", "Yyxtk9ZfdLrrIqLJ"}, oid + "\n"},
		{[]string{"-to", "hex", `ObjectId("` + oid + `")`}, oid + "\n"},
		{[]string{"-to", "hex", "1541815603606036480"}, "0x1565a11f6217a000\n"},
		{[]string{"-to", "hex", "1"}, "0x0000000000000001\n"},
		{[]string{"-to", "dec", "0x1565a11f6217a000"}, "1541815603606036480\n"},
		{[]string{"-from", "hex", "-to", "dec", "1565A11F6217A000"}, "1541815603606036480\n"},
		{[]string{"-from", "hex", "-to", "dec", "ff"}, "255\n"},
		{[]string{"-to", "base64", "1541815603606036480"}, "FWWhH2IXoAA=\n"},
		{[]string{"-to", "base64url", "1541815603606036480"}, "FWWhH2IXoAA\n"},
		{[]string{"-to", "dec", "FWWhH2IXoAA="}, "1541815603606036480\n"},
		{[]string{"-from", "base64", "-to", "dec", "FWWhH2IXoAA"}, "1541815603606036480\n"},
		{[]string{"-to", "dec", "--", "-_-_-_-_-_-_-_-_"}, "77989920169719058568882945983\n"},
		{[]string{"-to", "dec", "-kind", "snowflake", "9223372036854775807"}, "9223372036854775807\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := run(t, "", nil, append([]string{"convert"}, tt.args...)...)
			r.check(t, 0, nil, nil)
			if r.stdout != tt.want {
				t.Errorf("stdout %q, want %q", r.stdout, tt.want)
			}
		})
	}
}

func TestConvertAll(t *testing.T) {
	r := run(t, "633304ee48d18c808c6bb23a\n175928847299117063\n", nil, "convert")
	r.check(t, 0, []string{`633304ee48d18c808c6bb23a  ObjectID
  hex        633304ee48d18c808c6bb23a
  dec        30700694474151658437720388154
  base64     YzME7kjRjICMa7I6
  base64url  YzME7kjRjICMa7I6
  bytes      63 33 04 ee 48 d1 8c 80 8c 6b b2 3a
  sql        '\x633304ee48d18c808c6bb23a'::bytea (PostgreSQL)   X'633304EE48D18C808C6BB23A' (MySQL, MariaDB, SQLite)
  mongosh    ObjectId("633304ee48d18c808c6bb23a")
175928847299117063  Snowflake
  hex        0x0271065ac1020007
`, `  mongosh    NumberLong("175928847299117063")`}, nil)
}

func TestConvertRawRoundTrip(t *testing.T) {
	ids := []string{"632c6d93d65f74baeb22a2c9", "633304ee48d18c808c6bb23a", "4df2dcec2cdcd20936a8b817"}
	r := run(t, "", nil, append([]string{"convert", "-to", "raw"}, ids...)...)
	r.check(t, 0, nil, nil)
	if len(r.stdout) != 36 || r.stdout[:4] != "\x63\x2c\x6d\x93" {
		t.Fatalf("raw output %x, want 36 bytes", r.stdout)
	}
	back := run(t, r.stdout, nil, "convert", "-from", "raw", "-kind", "objectid", "-to", "hex")
	back.check(t, 0, nil, nil)
	if back.stdout != strings.Join(ids, "\n")+"\n" {
		t.Errorf("raw round trip gave %q", back.stdout)
	}

	// One 8-byte Snowflake needs no -kind; through a real pipe.
	pipe := exec.Command("sh", "-c", idkit+" convert -to raw 1541815603606036480 | "+idkit+" convert -from raw -to dec")
	var out bytes.Buffer
	pipe.Stdout = &out
	if err := pipe.Run(); err != nil || out.String() != "1541815603606036480\n" {
		t.Errorf("pipe: %q, %v", out.String(), err)
	}
}

func TestConvertBadInputsContinue(t *testing.T) {
	r := run(t, "", nil, "convert", "-to", "hex", "zz", "632c6d93d65f74baeb22a2c9", "//////////8=", "1234567890123456789012", "1")
	r.check(t, 1, nil, []string{
		`idkit convert: argument 1: not an ID: "zz"`,
		`idkit convert: argument 3: "//////////8=": the top bit is set, so it is not a Snowflake`,
		`idkit convert: argument 4: not an ID: "1234567890123456789012" has 22 digits`,
	})
	if r.stdout != "632c6d93d65f74baeb22a2c9\n0x0000000000000001\n" {
		t.Errorf("stdout %q: the valid inputs must still be converted", r.stdout)
	}

	k := run(t, "", nil, "convert", "-kind", "snowflake", "-to", "dec", "632c6d93d65f74baeb22a2c9", "7")
	k.check(t, 1, []string{"7\n"}, []string{`argument 1: "632c6d93d65f74baeb22a2c9" reads as an ObjectID, but --kind is snowflake`})

	raw := run(t, "12345", nil, "convert", "-from", "raw")
	raw.check(t, 1, nil, []string{"idkit convert: stdin: 5 raw bytes: pass --kind objectid (12 bytes each) or --kind snowflake (8 bytes each)"})
	raw = run(t, "1234567890123", nil, "convert", "-from", "raw", "-kind", "oid")
	raw.check(t, 1, nil, []string{"13 raw bytes are not a whole number of 12-byte objectids"})
}

func TestConvertUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-to", "octal", "1"}, `--to "octal": want all, hex, dec, base64, base64url or raw`},
		{[]string{"-from", "all", "1"}, `--from "all": want auto, hex, dec, base64, base64url or raw`},
		{[]string{"-kind", "x", "1"}, `--kind: bad kind: unknown kind "x"`},
		{[]string{"-from", "raw", "1"}, "--from raw reads standard input and takes no arguments"},
	} {
		r := run(t, "", nil, append([]string{"convert"}, tt.args...)...)
		r.check(t, 2, nil, []string{"idkit convert: " + tt.msg})
	}
}

// TestConvertAmbiguous: sixteen hex digits without 0x are a Snowflake's
// hex and an ObjectID's base64; the error names both and the flags.
func TestConvertAmbiguous(t *testing.T) {
	r := run(t, "", nil, "convert", "--to", "dec", "1565a11f6217a000")
	r.check(t, 1, nil, []string{`"1565a11f6217a000" is ambiguous: the Snowflake 1541815603606036480 in hex, or the ObjectID d79eb96b5d5feb6d7b6b4d34 in base64: pass --from hex (or write it 0x1565a11f6217a000, as convert --to hex does) or --from base64`})
	run(t, "", nil, "convert", "--from", "hex", "--to", "dec", "1565a11f6217a000").check(t, 0, []string{"1541815603606036480\n"}, nil)
	run(t, "", nil, "inspect", "--from", "hex", "1565a11f6217a000").check(t, 0, []string{"1541815603606036480  Snowflake"}, nil)
	h := run(t, "", nil, "convert", "--to", "hex", "1541815603606036480").stdout
	run(t, "", nil, "convert", "--to", "dec", strings.TrimSpace(h)).check(t, 0, []string{"1541815603606036480\n"}, nil)
	run(t, "", nil, "inspect", strings.TrimSpace(h)).check(t, 0, []string{"1541815603606036480  Snowflake"}, nil)
}
