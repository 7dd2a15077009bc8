package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A test key ring; never use a known key outside tests.
const publicRing = "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"

func TestPublicRoundTrip(t *testing.T) {
	env := []string{"IDKIT_PUBLICID_KEYS=" + publicRing}
	ids := "1541815603606036480\n632c6d93d65f74baeb22a2c9\n0190a3c2-5b7e-7def-8a12-3456789abcde\n"
	enc := run(t, ids, env, "public", "encode", "--prefix", "user")
	enc.check(t, 0, nil, nil)
	lines := strings.Fields(enc.stdout)
	want := []*regexp.Regexp{
		regexp.MustCompile(`^user_1[0-9a-f][0-9a-z]{12}$`),
		regexp.MustCompile(`^user_1[01][0-9a-z]{19}$`),
		regexp.MustCompile(`^user_1[0-7][0-9a-z]{25}$`),
	}
	if len(lines) != 3 {
		t.Fatalf("encode printed %q", enc.stdout)
	}
	for i, re := range want {
		if !re.MatchString(lines[i]) {
			t.Errorf("public ID %q does not match %s", lines[i], re)
		}
	}
	// The key from a file decodes what the key from the environment encoded.
	file := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(file, []byte(publicRing+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dec := run(t, enc.stdout, nil, "public", "decode", "--prefix", "user", "--key-file", file)
	dec.check(t, 0, nil, nil)
	if dec.stdout != ids {
		t.Errorf("decode printed %q, want %q", dec.stdout, ids)
	}
	// The TypeID form.
	tid := run(t, "", env, "public", "encode", "--prefix", "user", "--typeid", "0190a3c2-5b7e-7def-8a12-3456789abcde")
	tid.check(t, 0, nil, nil)
	if !regexp.MustCompile(`^user_1[0-9a-z]{25}\n$`).MatchString(tid.stdout) {
		t.Errorf("TypeID %q: want key 1's digit and 25 more", tid.stdout)
	}
	back := run(t, "", env, "public", "decode", "--prefix", "user", strings.TrimSpace(tid.stdout))
	back.check(t, 0, []string{"0190a3c2-5b7e-7def-8a12-3456789abcde\n"}, nil)
}

func TestPublicErrors(t *testing.T) {
	env := []string{"IDKIT_PUBLICID_KEYS=" + publicRing}
	good := strings.TrimSpace(run(t, "", env, "public", "encode", "--prefix", "user", "42").stdout)
	tests := []struct {
		args   []string
		env    []string
		code   int
		stderr string
	}{
		{[]string{"public", "encode", "1"}, nil, 2, "no key ring"},
		{[]string{"public", "encode", "--key-file", "/nonexistent", "1"}, nil, 2, "--key-file"},
		{[]string{"public", "encode", "1"}, []string{"IDKIT_PUBLICID_KEYS=1:short"}, 2, "not 32 bytes"},
		{[]string{"public", "encode", "--prefix", "User", "1"}, env, 2, "prefix"},
		{[]string{"public", "frobnicate"}, env, 2, "unknown subcommand"},
		{[]string{"public", "encode", "nonsense"}, env, 1, "argument 1"},
		{[]string{"public", "decode", "--prefix", "order", good}, env, 1, "want prefix \"order\""},
		{[]string{"public", "decode", "--prefix", "user", "user_1"}, env, 1, "characters after the prefix"},
		{[]string{"public", "decode", "--prefix", "user", strings.ToUpper(good[:5]) + good[5:]}, env, 1, "prefix"},
		{[]string{"public", "decode", "--prefix", "user", "user_2" + good[6:]}, env, 1, "key \"2\""},
		{[]string{"public", "key", "--id", "i"}, nil, 2, "--id"},
		{[]string{"public", "encode", "--typeid", "00000000-0000-0000-0000-000000000000"}, env, 1, "not an RFC 9562 UUID of version 1 to 8"},
		{[]string{"public", "encode", "--typeid", "0190a3c2-5b7e-7def-8a12-3456789abcde"}, []string{"IDKIT_PUBLICID_KEYS=a" + publicRing[1:]}, 2, "TypeID's first digit, which names its key, is 0-7"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := run(t, "", tt.env, tt.args...)
			r.check(t, tt.code, nil, []string{tt.stderr})
			if strings.Contains(r.stderr, "AAECAwQF") {
				t.Errorf("stderr shows the secret: %s", r.stderr)
			}
		})
	}
}

func TestPublicKey(t *testing.T) {
	a := run(t, "", nil, "public", "key")
	b := run(t, "", nil, "public", "key", "--id", "7")
	a.check(t, 0, nil, nil)
	b.check(t, 0, nil, nil)
	if !regexp.MustCompile(`^1:[A-Za-z0-9_-]{43}\n$`).MatchString(a.stdout) || !strings.HasPrefix(b.stdout, "7:") || a.stdout[2:] == b.stdout[2:] {
		t.Errorf("keys %q and %q", a.stdout, b.stdout)
	}
	// A new key first, the old one after: both decode, the new one encodes.
	old := []string{"IDKIT_PUBLICID_KEYS=" + publicRing}
	ring := []string{"IDKIT_PUBLICID_KEYS=" + strings.TrimSpace(b.stdout) + "," + publicRing}
	before := strings.TrimSpace(run(t, "", old, "public", "encode", "1541815603606036480").stdout)
	after := strings.TrimSpace(run(t, "", ring, "public", "encode", "1541815603606036480").stdout)
	if before[0] != '1' || after[0] != '7' {
		t.Fatalf("public IDs %q and %q", before, after)
	}
	run(t, "", ring, "public", "decode", before, after).check(t, 0, []string{"1541815603606036480\n1541815603606036480\n"}, nil)
	// TypeIDs of a version 4 UUID too: each names its key.
	const v4 = "9b2f3c1e-4d5a-4b6c-8d7e-0f1a2b3c4d5e"
	tidBefore := strings.TrimSpace(run(t, "", old, "public", "encode", "--typeid", v4).stdout)
	tidAfter := strings.TrimSpace(run(t, "", ring, "public", "encode", "--typeid", v4).stdout)
	if len(tidBefore) != 26 || tidBefore[0] != '1' || len(tidAfter) != 26 || tidAfter[0] != '7' {
		t.Fatalf("TypeIDs %q and %q", tidBefore, tidAfter)
	}
	run(t, "", ring, "public", "decode", tidBefore, tidAfter).check(t, 0, []string{v4 + "\n" + v4 + "\n"}, nil)
}
