package mongocompat

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// idKind says which idkit type an _id field holds.
type idKind uint8

const (
	kindOther idKind = iota // not an idkit type: never filled
	kindObjectID
	kindSnowflake
	kindNullObjectID
	kindNullSnowflake
	kindUUID
	kindNullUUID
	kindStdUUID // Go's uuid.UUID (Go 1.27 and later)
)

// idPath locates the _id field of a struct type the way the drivers' struct
// codecs find it: through inline struct (or struct pointer) fields, with the
// shallowest _id winning.
type idPath struct {
	index []int  // field index at each level; all but the last are inline fields
	kind  idKind // type of the last field (after ptr)
	ptr   bool   // the last field is a pointer to the idkit type
}

type planEntry struct {
	path *idPath // nil: the type has no idkit _id field
	err  error
}

// plans caches a planEntry per struct type; types are few, so it only grows.
var plans sync.Map // reflect.Type -> planEntry

// planFor returns the location of t's _id field, or nil if t has none of an
// idkit type. t must be a struct type.
func planFor(t reflect.Type) (*idPath, error) {
	if e, ok := plans.Load(t); ok {
		p := e.(planEntry)
		return p.path, p.err
	}
	p, _, err := findID(t, map[reflect.Type]bool{})
	if err == nil && p != nil && p.kind == kindOther {
		p = nil
	}
	plans.Store(t, planEntry{path: p, err: err})
	return p, err
}

// findID returns the dominant _id field of struct type t and its inline
// depth, or nil if there is none. Like the drivers, it ignores unexported
// fields and fields tagged "-", and reports two _id fields at the same
// depth as an error.
func findID(t reflect.Type, visiting map[reflect.Type]bool) (*idPath, int, error) {
	if visiting[t] {
		return nil, 0, fmt.Errorf("%w: inline struct %s contains itself", ErrInvalidDocument, t)
	}
	visiting[t] = true
	defer delete(visiting, t)

	var (
		best      *idPath
		bestDepth int
		tie       bool
	)
	consider := func(p *idPath, depth int) {
		switch {
		case best == nil || depth < bestDepth:
			best, bestDepth, tie = p, depth, false
		case depth == bestDepth:
			tie = true
		}
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, inline, skip := bsonTag(sf)
		if skip {
			continue
		}
		if inline {
			ft := sf.Type
			ptr := ft.Kind() == reflect.Pointer
			if ptr {
				ft = ft.Elem()
			}
			if ft.Kind() != reflect.Struct {
				continue // inline maps are the driver's business
			}
			p, depth, err := findID(ft, visiting)
			if err != nil {
				return nil, 0, err
			}
			if p != nil {
				consider(&idPath{index: append([]int{i}, p.index...), kind: p.kind, ptr: p.ptr}, depth+1)
			}
			continue
		}
		if name != "_id" {
			continue
		}
		kind, ptr := classify(sf.Type)
		consider(&idPath{index: []int{i}, kind: kind, ptr: ptr}, 0)
	}
	if tie {
		return nil, 0, fmt.Errorf("%w: struct %s has more than one _id field at the same depth", ErrInvalidDocument, t)
	}
	return best, bestDepth, nil
}

// bsonTag parses a field's bson tag as the drivers do: the key is the first
// comma-separated part (default: the lower-cased field name), a bare tag
// with no colon is read as the bson tag, and "-" skips the field.
func bsonTag(sf reflect.StructField) (name string, inline, skip bool) {
	tag, ok := sf.Tag.Lookup("bson")
	if !ok && len(sf.Tag) > 0 && !strings.Contains(string(sf.Tag), ":") {
		tag = string(sf.Tag)
	}
	if tag == "-" {
		return "", false, true
	}
	name = strings.ToLower(sf.Name)
	for i, part := range strings.Split(tag, ",") {
		if i == 0 && part != "" {
			name = part
		}
		if part == "inline" {
			inline = true
		}
	}
	return name, inline, false
}

func classify(t reflect.Type) (idKind, bool) {
	ptr := t.Kind() == reflect.Pointer
	if ptr {
		t = t.Elem()
	}
	switch t {
	case tObjectID:
		return kindObjectID, ptr
	case tSnowflake:
		return kindSnowflake, ptr
	case tNullObjectID:
		return kindNullObjectID, ptr
	case tNullSnowflake:
		return kindNullSnowflake, ptr
	case tUUID:
		return kindUUID, ptr
	case tNullUUID:
		return kindNullUUID, ptr
	case tStdUUID: // nil before Go 1.27
		return kindStdUUID, ptr
	}
	return kindOther, false
}
