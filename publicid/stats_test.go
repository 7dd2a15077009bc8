package publicid_test

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

// kendallTau returns Kendall's tau between positions 0..n-1 and keys (all
// distinct): 1 when keys rise, -1 when they fall, near 0 when their order
// is unrelated. It counts inversions by merge sort.
func kendallTau(keys []string) float64 {
	n := len(keys)
	a := slices.Clone(keys)
	tmp := make([]string, n)
	var inversions int64
	var sort func(lo, hi int)
	sort = func(lo, hi int) {
		if hi-lo < 2 {
			return
		}
		mid := (lo + hi) / 2
		sort(lo, mid)
		sort(mid, hi)
		i, j, k := lo, mid, lo
		for i < mid && j < hi {
			if a[j] < a[i] {
				inversions += int64(mid - i)
				tmp[k] = a[j]
				j++
			} else {
				tmp[k] = a[i]
				i++
			}
			k++
		}
		k += copy(tmp[k:], a[i:mid])
		copy(tmp[k:], a[j:hi])
		copy(a[lo:hi], tmp[lo:hi])
	}
	sort(0, n)
	pairs := float64(n) * float64(n-1) / 2
	return 1 - 2*float64(inversions)/pairs
}

// bitBalance returns, over every bit of the digits after the key digit
// (those the ID fills), the largest distance from 1/2 of the share of
// public IDs with that bit set.
func bitBalance(t *testing.T, forms []string, skip int, payloadBits int) float64 {
	t.Helper()
	const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"
	counts := make([]int, 5*len(forms[0][skip:]))
	for _, s := range forms {
		for i, c := range s[skip:] {
			d := strings.IndexRune(alphabet, c)
			for b := range 5 {
				counts[5*i+b] += d >> (4 - b) & 1
			}
		}
	}
	worst := 0.0
	for _, c := range counts[len(counts)-payloadBits:] { // the top bits are padding, always 0
		worst = max(worst, math.Abs(float64(c)/float64(len(forms))-0.5))
	}
	return worst
}

const statN = 100_000

// TestConsecutiveSnowflakesUncorrelated checks that 100,000 consecutive
// Snowflakes of one node give public IDs whose order (as text) is unrelated
// to the IDs' order, and whose every bit is set in about half of them.
func TestConsecutiveSnowflakesUncorrelated(t *testing.T) {
	c := mustNew[types.Snowflake](t, "user", key1)
	layout := generator.Twitter()
	first, err := layout.MinID(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	parts, err := layout.Decompose(first)
	if err != nil {
		t.Fatal(err)
	}
	start := parts.Tick
	forms := make([]string, statN)
	raw := make([]string, statN)
	for i := range statN {
		// 4096 IDs per millisecond on node 7, as a busy generator makes them.
		id, err := layout.Compose(start+int64(i/4096), 7, int64(i%4096))
		if err != nil {
			t.Fatal(err)
		}
		forms[i] = mustEncode(t, c, id)
		raw[i] = strings.Repeat("0", 20-len(id.String())) + id.String()
	}
	if tau := kendallTau(raw); tau != 1 {
		t.Fatalf("tau of the raw IDs is %v, want 1 (the check is broken)", tau)
	}
	// Under no correlation tau has standard deviation sqrt(2(2n+5)/(9n(n-1))), about 0.0021.
	tau := kendallTau(forms)
	t.Logf("Kendall's tau of %d consecutive Snowflakes' public IDs: %.5f", statN, tau)
	if math.Abs(tau) > 0.01 {
		t.Errorf("Kendall's tau of public Snowflakes = %.4f, want near 0", tau)
	}
	// A share of n fair bits has standard deviation 0.5/sqrt(n), about 0.0016.
	if w := bitBalance(t, forms, len("user_1"), 64); w > 0.01 {
		t.Errorf("a bit of the public Snowflakes is set in %.4f more or less than half of them", w)
	}
	if w := bitBalance(t, raw, 0, 60); w < 0.1 {
		t.Fatalf("the raw IDs look balanced (%.4f): the check is broken", w)
	}
	seen := make(map[string]bool, statN)
	for _, s := range forms {
		if seen[s] {
			t.Fatalf("two IDs give %s", s)
		}
		seen[s] = true
	}
}

// TestConsecutiveObjectIDsUncorrelated does the same for 100,000
// consecutive ObjectIDs of one process.
func TestConsecutiveObjectIDsUncorrelated(t *testing.T) {
	c := mustNew[types.ObjectID](t, "order", key1)
	g, err := generator.NewObjectID()
	if err != nil {
		t.Fatal(err)
	}
	forms := make([]string, statN)
	raw := make([]string, statN)
	for i := range statN {
		id := g.Next()
		forms[i] = mustEncode(t, c, id)
		raw[i] = id.Hex()
	}
	if tau := kendallTau(raw); tau != 1 {
		t.Fatalf("tau of the raw IDs is %v, want 1", tau)
	}
	tau := kendallTau(forms)
	t.Logf("Kendall's tau of %d consecutive ObjectIDs' public IDs: %.5f", statN, tau)
	if math.Abs(tau) > 0.01 {
		t.Errorf("Kendall's tau of public ObjectIDs = %.4f, want near 0", tau)
	}
	if w := bitBalance(t, forms, len("order_1"), 96); w > 0.01 {
		t.Errorf("a bit of the public ObjectIDs is set in %.4f more or less than half of them", w)
	}
}
