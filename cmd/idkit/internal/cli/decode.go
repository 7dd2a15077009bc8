package cli

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/idkit-go/idkit/cmd/idkit/internal/parse"
	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

// field is one bit field of an ID, most significant first.
type field struct {
	Name  string `json:"name"`
	Bits  int    `json:"bits"`
	Value uint64 `json:"value"`
	group int    // bit grouping in the diagram
}

// legacy is the reading of an ObjectID in the layout used before MongoDB
// 3.4: a 4-byte Unix second, a 3-byte machine identifier (usually a hash of
// the host name), a 2-byte process ID and a 3-byte counter. The layout is
// obsolete, but IDs made with it are still found in old data. Any 12 bytes
// decode, so it is shown beside the current reading, never instead of it.
type legacy struct {
	Machine string `json:"machine"` // 6 hex digits, bytes 4 to 6
	PID     uint16 `json:"pid"`     // bytes 7 and 8, big-endian
	Counter uint32 `json:"counter"` // bytes 9 to 11
}

// legacyOf decodes id with the pre-3.4 layout.
func legacyOf(id types.ObjectID) *legacy {
	return &legacy{
		Machine: hex.EncodeToString(id[4:7]),
		PID:     uint16(id[7])<<8 | uint16(id[8]),
		Counter: id.Counter(),
	}
}

// record is everything inspect prints about one ID; it is also the JSON
// object of --json.
type record struct {
	Input string `json:"input"`
	Kind  string `json:"kind"`
	ID    string `json:"id"`
	Time  string `json:"time"`
	Local string `json:"local"`

	// ObjectID
	Unix          *int64  `json:"unix,omitempty"`
	ProcessUnique string  `json:"process_unique,omitempty"`
	Counter       *uint32 `json:"counter,omitempty"`
	Legacy        *legacy `json:"legacy,omitempty"`

	// Snowflake
	Layout     string `json:"layout,omitempty"`
	UnixMilli  *int64 `json:"unix_ms,omitempty"`
	Tick       *int64 `json:"tick,omitempty"`
	Node       *int64 `json:"node,omitempty"`
	Datacenter *int64 `json:"datacenter,omitempty"`
	Worker     *int64 `json:"worker,omitempty"`
	Process    *int64 `json:"process,omitempty"`
	Sequence   *int64 `json:"sequence,omitempty"`

	// UUID (and UnixMilli for version 7)
	Version *int   `json:"version,omitempty"`
	Variant string `json:"variant,omitempty"`

	// A key in a scatter form (--form): the form and the key; ID is the
	// ordered ID it turns back into.
	Form string `json:"form,omitempty"`
	Key  string `json:"key,omitempty"`

	Fields []field  `json:"fields"`
	Notes  []string `json:"notes,omitempty"`
	layout generator.Layout
	when   time.Time
}

const futureSlack = 24 * time.Hour

func formatLocal(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("2006-01-02T15:04:05.999999999Z07:00 MST")
}

// decodeObjectID describes an ObjectID.
func decodeObjectID(e *Env, in string, id types.ObjectID) record {
	t := id.Timestamp()
	unix, counter := t.Unix(), id.Counter()
	pu := id.ProcessUnique()
	r := record{
		Input: in, Kind: parse.KindObjectID.String(), ID: id.Hex(),
		Time: t.Format(time.RFC3339Nano), Local: formatLocal(t, e.Local),
		Unix: &unix, ProcessUnique: hex.EncodeToString(pu[:]), Counter: &counter,
		Legacy: legacyOf(id),
		Fields: []field{
			{Name: "time", Bits: 32, Value: uint64(unix), group: 8},
			{Name: "process", Bits: 40, Value: uint64(pu[0])<<32 | uint64(pu[1])<<24 | uint64(pu[2])<<16 | uint64(pu[3])<<8 | uint64(pu[4]), group: 8},
			{Name: "counter", Bits: 24, Value: uint64(counter), group: 8},
		},
		when: t,
	}
	if id.IsZero() {
		r.Notes = append(r.Notes, "this is the nil ObjectID (no ID)")
	} else if t.After(e.Now().Add(futureSlack)) {
		r.Notes = append(r.Notes, "the time is in the future")
	}
	return r
}

// decodeSnowflake describes a Snowflake under l.
func decodeSnowflake(e *Env, in string, id types.Snowflake, l generator.Layout) (record, error) {
	p, err := l.Decompose(id)
	if err != nil {
		return record{}, err
	}
	ms := p.Time.UnixMilli()
	r := record{
		Input: in, Kind: parse.KindSnowflake.String(), ID: id.String(),
		Time: p.Time.Format(time.RFC3339Nano), Local: formatLocal(p.Time, e.Local),
		Layout: parse.FormatLayout(l), UnixMilli: &ms, Tick: &p.Tick, Node: &p.Node, Sequence: &p.Sequence,
		layout: l, when: p.Time,
	}
	if hi, _, ok := splitNode(l); ok {
		a, b := p.Node>>5, p.Node&31
		if hi == "datacenter" {
			r.Datacenter, r.Worker = &a, &b
		} else {
			r.Worker, r.Process = &a, &b
		}
	}
	spec := l.Spec()
	used := int(spec.TimeBits + spec.NodeBits + spec.SequenceBits)
	r.Fields = append(r.Fields, field{Name: "unused", Bits: 64 - used, Value: 0, group: 4})
	r.Fields = append(r.Fields, field{Name: "time", Bits: int(spec.TimeBits), Value: uint64(p.Tick), group: 4})
	nodeGroup := 4
	if _, _, ok := splitNode(l); ok {
		nodeGroup = 5
	}
	node := field{Name: nodeName(l), Bits: int(spec.NodeBits), Value: uint64(p.Node), group: nodeGroup}
	seq := field{Name: "sequence", Bits: int(spec.SequenceBits), Value: uint64(p.Sequence), group: 4}
	if spec.SequenceAboveNode {
		r.Fields = append(r.Fields, seq, node)
	} else {
		r.Fields = append(r.Fields, node, seq)
	}
	if node.Bits == 0 {
		r.Fields = removeEmpty(r.Fields)
	}
	switch {
	case id.IsZero():
		r.Notes = append(r.Notes, "this is the zero Snowflake (no ID)")
	case p.Time.After(e.Now().Add(futureSlack)):
		r.Notes = append(r.Notes, "the time is in the future: is the layout right? (see --layout)")
	}
	return r, nil
}

func removeEmpty(fs []field) []field {
	out := fs[:0]
	for _, f := range fs {
		if f.Bits > 0 {
			out = append(out, f)
		}
	}
	return out
}

// uuidVariant names the variant of a UUID (RFC 9562, section 4.1).
func uuidVariant(id types.UUID) string {
	switch v := id[8]; {
	case v&0x80 == 0:
		return "NCS (reserved)"
	case v&0xc0 == 0x80:
		return "RFC 9562"
	case v&0xe0 == 0xc0:
		return "Microsoft (reserved)"
	}
	return "future (reserved)"
}

// decodeUUID describes a UUID: its version and variant, and for version 7
// its time.
func decodeUUID(e *Env, in string, id types.UUID) record {
	version := int(id[6] >> 4)
	hi, lo := binary.BigEndian.Uint64(id[0:8]), binary.BigEndian.Uint64(id[8:16])
	r := record{
		Input: in, Kind: parse.KindUUID.String(), ID: id.String(),
		Version: &version, Variant: uuidVariant(id),
	}
	names := [3]string{"bits", "bits", "bits"}
	if t := id.Time(); !t.IsZero() {
		ms := t.UnixMilli()
		r.Time, r.Local, r.UnixMilli, r.when = t.Format(time.RFC3339Nano), formatLocal(t, e.Local), &ms, t
		names = [3]string{"unix_ms", "rand_a", "rand_b"}
		if t.After(e.Now().Add(futureSlack)) {
			r.Notes = append(r.Notes, "the time is in the future")
		}
	} else if !id.IsZero() {
		r.Notes = append(r.Notes, fmt.Sprintf("version %d with variant %s holds no Unix time idkit decodes (only version 7 does)", version, r.Variant))
	}
	if id.IsZero() {
		r.Notes = append(r.Notes, "this is the nil UUID (no ID)")
	}
	r.Fields = []field{
		{Name: names[0], Bits: 48, Value: hi >> 16, group: 4},
		{Name: "ver", Bits: 4, Value: uint64(version), group: 4},
		{Name: names[1], Bits: 12, Value: hi & 0xfff, group: 4},
		{Name: "var", Bits: 2, Value: lo >> 62, group: 2},
		{Name: names[2], Bits: 62, Value: lo & (1<<62 - 1), group: 4},
	}
	return r
}
