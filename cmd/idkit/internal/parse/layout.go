package parse

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/idkit-go/idkit/generator"
)

// LayoutSyntax documents the layout specifications that [Layout] accepts; the
// command prints it in its help.
const LayoutSyntax = `A layout is a preset name, optionally followed by ':' and comma-separated
key=value overrides, or 'custom:' followed by every key it needs:

  twitter     41-bit ms since 2010-11-04T01:42:54.657Z, 10-bit node, 12-bit sequence
  sonyflake   39-bit 10ms units since 2014-09-01, 8-bit sequence, 16-bit machine
  discord     like twitter, ms since 2015-01-01T00:00:00Z
  custom:time=41,node=10,seq=12,unit=1ms,epoch=2015-01-01T00:00:00Z
  twitter:epoch=2018-08-01      (Twitter bits, your own epoch)

Keys: time, node, seq (bit widths; time+node+seq <= 63; node may be 0),
unit (a Go duration such as 1ms or 10ms; default 1ms for custom),
epoch (RFC 3339 time, a date YYYY-MM-DD meaning midnight UTC, or Unix
milliseconds), order (node-seq: sequence in the low bits, the default;
seq-node: node in the low bits, as Sonyflake). custom needs time, seq and
epoch; node defaults to 0.`

// Layout parses a layout specification (see [LayoutSyntax]). Names and keys
// are case-insensitive. A malformed specification, an unknown or repeated
// key, or one that [generator.NewLayout] rejects returns an error wrapping
// [ErrLayout] that names the offending part.
func Layout(s string) (generator.Layout, error) {
	name, overrides, hasOverrides := strings.Cut(strings.TrimSpace(s), ":")
	var spec generator.LayoutSpec
	switch strings.ToLower(name) {
	case "twitter":
		spec = generator.Twitter().Spec()
	case "sonyflake":
		spec = generator.Sonyflake().Spec()
	case "discord":
		spec = generator.Discord().Spec()
	case "custom":
		if !hasOverrides {
			return generator.Layout{}, fmt.Errorf("%w: %q: custom needs keys, for example custom:time=41,node=10,seq=12,unit=1ms,epoch=2015-01-01", ErrLayout, s)
		}
		spec = generator.LayoutSpec{Unit: time.Millisecond}
	default:
		return generator.Layout{}, fmt.Errorf("%w: %q: unknown layout %q (want twitter, sonyflake, discord or custom:...)", ErrLayout, s, name)
	}
	if !hasOverrides {
		return generator.NewLayout(spec)
	}
	seen := map[string]bool{}
	for _, kv := range strings.Split(overrides, ",") {
		key, val, ok := strings.Cut(kv, "=")
		key, val = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(val)
		if key == "sequence" {
			key = "seq"
		}
		if !ok || key == "" || val == "" {
			return generator.Layout{}, fmt.Errorf("%w: %q: %q is not key=value", ErrLayout, s, kv)
		}
		if seen[key] {
			return generator.Layout{}, fmt.Errorf("%w: %q: key %q given twice", ErrLayout, s, key)
		}
		seen[key] = true
		if err := setKey(&spec, key, val); err != nil {
			return generator.Layout{}, fmt.Errorf("%w: %q: %s", ErrLayout, s, err)
		}
	}
	if strings.EqualFold(name, "custom") {
		for _, k := range []string{"time", "seq", "epoch"} {
			if !seen[k] {
				return generator.Layout{}, fmt.Errorf("%w: %q: custom needs %s=", ErrLayout, s, k)
			}
		}
	}
	spec.Name = "custom"
	l, err := generator.NewLayout(spec)
	if err != nil {
		return generator.Layout{}, fmt.Errorf("%w: %q: %w", ErrLayout, s, err)
	}
	return l, nil
}

// setKey applies one key=value override to spec; the error is a bare reason.
func setKey(spec *generator.LayoutSpec, key, val string) error {
	switch key {
	case "time", "node", "seq":
		n, err := strconv.ParseUint(val, 10, 8)
		if err != nil || n > 63 {
			return fmt.Errorf("%s=%s is not a bit width 0 to 63", key, val)
		}
		switch key {
		case "time":
			spec.TimeBits = uint8(n)
		case "node":
			spec.NodeBits = uint8(n)
		default:
			spec.SequenceBits = uint8(n)
		}
	case "unit":
		d, err := time.ParseDuration(val)
		if err != nil || d <= 0 {
			return fmt.Errorf("unit=%s is not a positive duration such as 1ms", val)
		}
		spec.Unit = d
	case "epoch":
		t, err := epoch(val)
		if err != nil {
			return err
		}
		spec.Epoch = t
	case "order":
		switch strings.ToLower(val) {
		case "node-seq":
			spec.SequenceAboveNode = false
		case "seq-node":
			spec.SequenceAboveNode = true
		default:
			return fmt.Errorf("order=%s is not node-seq or seq-node", val)
		}
	default:
		return fmt.Errorf("unknown key %q (want time, node, seq, unit, epoch or order)", key)
	}
	return nil
}

// epoch reads an RFC 3339 time, a date or Unix milliseconds.
func epoch(val string) (time.Time, error) {
	t, err := epochTime(val)
	if err == nil && (t.Year() < 1 || t.Year() > 9999) {
		return time.Time{}, fmt.Errorf("epoch=%s is outside the years 1 to 9999", val)
	}
	return t, err
}

func epochTime(val string) (time.Time, error) {
	if isDecimal(val) || strings.HasPrefix(val, "-") && isDecimal(val[1:]) {
		ms, err := strconv.ParseInt(val, 10, 64)
		if err == nil {
			return time.UnixMilli(ms).UTC(), nil
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, val); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, val); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("epoch=%s is not an RFC 3339 time, a date YYYY-MM-DD or Unix milliseconds", val)
}

// FormatLayout returns the specification of l that [Layout] reads back: the
// preset's name for an unchanged preset, otherwise the full custom form,
// for example "custom:time=41,node=10,seq=12,unit=1ms,epoch=2015-01-01T00:00:00Z".
func FormatLayout(l generator.Layout) string {
	for _, p := range []generator.Layout{generator.Twitter(), generator.Sonyflake(), generator.Discord()} {
		if l == p {
			return p.Spec().Name
		}
	}
	s := l.Spec()
	order := ""
	if s.SequenceAboveNode {
		order = ",order=seq-node"
	}
	return fmt.Sprintf("custom:time=%d,node=%d,seq=%d,unit=%s,epoch=%s%s",
		s.TimeBits, s.NodeBits, s.SequenceBits, s.Unit, s.Epoch.Format(time.RFC3339Nano), order)
}
