package main_test

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestEveryFormReadsBack writes IDs in every form convert writes (hex,
// dec, base64, base64url), then reads each output back with convert (to
// hex, with no --from) and with inspect: each must give the same ID, or,
// for an ObjectID's base64 made only of hex digits, also a Snowflake's
// hex without 0x, an error that names --from hex and --from base64, with
// which the output reads back.
func TestEveryFormReadsBack(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 5))
	var ids []string // canonical: 24 hex digits, or the decimal Snowflake
	for _, v := range []uint64{1, 9, 10, 42, 1541815603606036480, 0x1000000000000000, 0x0123456789012345, 1<<63 - 1, 1e15, 1e16 - 1} {
		ids = append(ids, strconv.FormatUint(v, 10))
	}
	for range 300 {
		ids = append(ids, strconv.FormatUint(r.Uint64()>>1, 10), strconv.FormatUint(r.Uint64()>>(1+r.IntN(62)), 10))
		// A Snowflake whose hex is all decimal digits, as 1 in 1,800 are.
		var h [16]byte
		for i := range h {
			h[i] = "0123456789"[r.IntN(10)]
		}
		h[0] = "01234567"[r.IntN(8)]
		v, _ := strconv.ParseUint(string(h[:]), 16, 64)
		ids = append(ids, strconv.FormatUint(v, 10))
		var oid [12]byte
		binary.BigEndian.PutUint32(oid[:], uint32(1_600_000_000+r.IntN(400_000_000)))
		binary.BigEndian.PutUint64(oid[4:], r.Uint64())
		ids = append(ids, hex.EncodeToString(oid[:]))
	}
	hexOf := func(id string) string {
		if len(id) == 24 {
			return id
		}
		v, _ := strconv.ParseUint(id, 10, 64)
		return fmt.Sprintf("0x%016x", v)
	}
	var inputs []string // 0x-prefixed hex for Snowflakes: never ambiguous
	for _, id := range ids {
		if len(id) != 24 {
			id = hexOf(id)
		}
		inputs = append(inputs, id)
	}
	in := strings.Join(inputs, "\n") + "\n"
	ambiguous := regexp.MustCompile(`^idkit (convert|inspect): stdin line (\d+): "[0-9a-f]{16}" is ambiguous: .*pass --from hex .* or --from base64`)
	for _, form := range []string{"hex", "dec", "base64", "base64url"} {
		w := run(t, in, nil, "convert", "--to", form)
		w.check(t, 0, nil, nil)
		outs := strings.Fields(w.stdout)
		if len(outs) != len(ids) {
			t.Fatalf("--to %s: %d outputs for %d IDs", form, len(outs), len(ids))
		}
		back := run(t, strings.Join(outs, "\n")+"\n", nil, "convert", "--to", "hex")
		failed := map[int]bool{}
		for _, line := range strings.Split(strings.TrimSpace(back.stderr), "\n") {
			if line == "" {
				continue
			}
			m := ambiguous.FindStringSubmatch(line)
			if m == nil {
				t.Errorf("--to %s, read back: %s", form, line)
				continue
			}
			n, _ := strconv.Atoi(m[2])
			failed[n-1] = true
		}
		got := strings.Fields(back.stdout)
		misread, amb := 0, 0
		for i, j := 0, 0; i < len(ids); i++ {
			if failed[i] {
				amb++
				again := run(t, outs[i]+"\n", nil, "convert", "--from", form, "--to", "hex")
				if again.stdout != hexOf(ids[i])+"\n" {
					t.Errorf("%s in %s is %q; with --from %s it reads as %q %s", ids[i], form, outs[i], form, again.stdout, again.stderr)
				}
				continue
			}
			if j >= len(got) || got[j] != hexOf(ids[i]) {
				misread++
				if misread <= 5 {
					t.Errorf("%s in %s is %q, which convert reads back as %q", ids[i], form, outs[i], got[min(j, len(got)-1)])
				}
			}
			j++
		}
		if misread > 0 {
			t.Errorf("--to %s: %d of %d outputs read back as another ID or not at all", form, misread, len(ids))
		}
		insp := run(t, strings.Join(outs, "\n")+"\n", nil, "inspect", "--json")
		dec := json.NewDecoder(strings.NewReader(insp.stdout))
		wrong := 0
		for i := 0; dec.More(); i++ {
			var rec struct{ Input, ID, Error string }
			if err := dec.Decode(&rec); err != nil {
				t.Fatal(err)
			}
			if i >= len(ids) || rec.Input != outs[i] {
				t.Fatalf("inspect record %d is for %q", i, rec.Input)
			}
			if rec.Error != "" && failed[i] && strings.Contains(rec.Error, "or --from base64") {
				continue
			}
			if rec.ID != ids[i] {
				wrong++
				if wrong <= 5 {
					t.Errorf("%s in %s is %q, which inspect reads as %q %s", ids[i], form, outs[i], rec.ID, rec.Error)
				}
			}
		}
		if wrong > 0 {
			t.Errorf("--to %s: inspect misread %d of %d outputs", form, wrong, len(ids))
		}
		t.Logf("--to %s: %d IDs read back, %d ambiguous with an error naming the flags", form, len(ids)-amb, amb)
	}
}
