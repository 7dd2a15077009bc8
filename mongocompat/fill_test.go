package mongocompat_test

import (
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
	"github.com/idkit-go/idkit/mongocompat"
	"github.com/idkit-go/idkit/types"
)

type (
	Base struct {
		ID types.ObjectID `bson:"_id"`
	}
	inlineDoc struct {
		Base `bson:",inline"`
		Name string `bson:"name"`
	}
	inlinePtrDoc struct {
		*Base `bson:",inline"`
	}
	shadowDoc struct {
		Base `bson:",inline"`
		ID   types.Snowflake `bson:"_id"`
	}
	subDoc struct {
		Base        // not inline: a sub-document, whose _id is not the key
		Name string `bson:"name"`
	}
	ambiguousDoc struct {
		A types.ObjectID `bson:"_id"`
		B types.ObjectID `bson:"_id"`
	}
	ptrDoc struct {
		ID *types.ObjectID `bson:"_id,omitempty"`
	}
	nullIDDoc struct {
		ID types.NullObjectID `bson:"_id"`
	}
	nullSnowDoc struct {
		ID *types.NullSnowflake `bson:"_id"`
	}
	otherDoc struct {
		ID bson.ObjectID `bson:"_id"`
	}
	unexportedDoc struct {
		//lint:ignore U1000 the fill must ignore an unexported _id field
		id   types.ObjectID `bson:"_id"`
		Name string
	}
	skippedDoc struct {
		ID  types.ObjectID `bson:"-"`
		Key types.ObjectID `bson:"_id"`
	}
	Loop struct {
		*Loop `bson:",inline"`
	}
)

func TestFillID(t *testing.T) {
	set := types.NewObjectID()
	g, _ := snowflakeGen(t)
	f := mongocompat.NewFiller(mongocompat.WithSnowflake(g))

	cases := []struct {
		name    string
		doc     any
		filled  bool
		err     error
		idOf    func(any) any // the _id after filling, read from doc
		keepsID any           // the _id that must be kept, when set
	}{
		{"pointer to struct", &objDoc{}, true, nil, func(d any) any { return d.(*objDoc).ID }, nil},
		{"set key kept", &objDoc{ID: set}, false, nil, func(d any) any { return d.(*objDoc).ID }, set},
		{"struct by value, zero", objDoc{}, false, types.ErrNotAddressable, nil, nil},
		{"struct by value, set", objDoc{ID: set}, false, nil, nil, set},
		{"pointer to pointer", ptrTo(&objDoc{}), true, nil, func(d any) any { return (*d.(**objDoc)).ID }, nil},
		{"nil pointer", (*objDoc)(nil), false, nil, nil, nil},
		{"nil", nil, false, nil, nil, nil},
		{"inline", &inlineDoc{}, true, nil, func(d any) any { return d.(*inlineDoc).ID }, nil},
		{"inline pointer", &inlinePtrDoc{Base: &Base{}}, true, nil, func(d any) any { return d.(*inlinePtrDoc).ID }, nil},
		{"nil inline pointer", &inlinePtrDoc{}, false, nil, nil, nil},
		{"shallow _id wins", &shadowDoc{}, true, nil, func(d any) any { return d.(*shadowDoc).ID }, nil},
		{"embedded, not inline", &subDoc{}, false, nil, nil, nil},
		{"ambiguous", &ambiguousDoc{}, false, mongocompat.ErrInvalidDocument, nil, nil},
		{"nil pointer field", &ptrDoc{}, true, nil, func(d any) any { return *d.(*ptrDoc).ID }, nil},
		{"pointer field to zero", &ptrDoc{ID: new(types.ObjectID)}, true, nil, func(d any) any { return *d.(*ptrDoc).ID }, nil},
		{"pointer field set", &ptrDoc{ID: &set}, false, nil, func(d any) any { return *d.(*ptrDoc).ID }, set},
		{"NullObjectID", &nullIDDoc{}, true, nil, func(d any) any { return d.(*nullIDDoc).ID }, nil},
		{"*NullSnowflake", &nullSnowDoc{}, true, nil, func(d any) any { return *d.(*nullSnowDoc).ID }, nil},
		{"Snowflake", &snowDoc{}, true, nil, func(d any) any { return d.(*snowDoc).ID }, nil},
		{"Snowflake set", &snowDoc{ID: 9}, false, nil, func(d any) any { return d.(*snowDoc).ID }, types.Snowflake(9)},
		{"driver ObjectID left alone", &otherDoc{}, false, nil, nil, nil},
		{"unexported ignored", &unexportedDoc{}, false, nil, nil, nil},
		{"skipped field", &skippedDoc{}, true, nil, func(d any) any { return d.(*skippedDoc).Key }, nil},
		{"bare tag", bareTagDoc(), true, nil, func(d any) any { return reflect.ValueOf(d).Elem().Field(0).Interface() }, nil},
		{"self inline", &Loop{}, false, mongocompat.ErrInvalidDocument, nil, nil},
		{"bson.M left to the driver", bson.M{"name": "x"}, false, nil, nil, nil},
		{"bson.D left to the driver", bson.D{}, false, nil, nil, nil},
		{"map pointer", &map[string]any{}, false, nil, nil, nil},
		{"string", "x", false, nil, nil, nil},
		{"interface slot holding a struct", ptrToAny(objDoc{}), true, nil, func(d any) any { return (*d.(*any)).(objDoc).ID }, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id, filled, err := f.FillID(c.doc)
			if c.err != nil {
				require.ErrorIs(t, err, c.err)
				assert.False(t, filled)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.filled, filled)
			if c.keepsID != nil {
				assert.Equal(t, c.keepsID, id)
			}
			if c.idOf != nil {
				got := c.idOf(c.doc)
				assert.Equal(t, got, id, "returned id is the document's")
				assert.False(t, got.(interface{ IsZero() bool }).IsZero())
			} else if c.keepsID == nil {
				assert.Nil(t, id)
			}
		})
	}
}

// bareTagDoc returns a pointer to a new struct whose _id field has the
// legacy bare tag `_id` (built by reflection, since go vet rejects it).
func bareTagDoc() any {
	t := reflect.StructOf([]reflect.StructField{{Name: "ID", Type: reflect.TypeFor[types.ObjectID](), Tag: "_id"}})
	return reflect.New(t).Interface()
}

func ptrTo[T any](v T) *T { return &v }

func ptrToAny(v any) *any { return &v }

// The zero Filler is ready to use: ObjectIDs from types.NewObjectID, no
// Snowflake generator.
func TestFillIDZeroFiller(t *testing.T) {
	var f mongocompat.Filler
	o := &objDoc{}
	id, filled, err := f.FillID(o)
	require.NoError(t, err)
	assert.True(t, filled)
	assert.False(t, o.ID.IsZero())
	assert.Equal(t, o.ID, id)

	for _, doc := range []any{&snowDoc{}, &nullSnowDoc{}} {
		_, _, err := f.FillID(doc)
		assert.ErrorIs(t, err, generator.ErrNoSnowflakeGenerator)
	}
	d := &snowDoc{ID: 5}
	_, filled, err = f.FillID(d)
	require.NoError(t, err, "a set Snowflake needs no generator")
	assert.False(t, filled)
}

func TestFillIDGeneratorError(t *testing.T) {
	clock := generatortest.NewFakeClock(baseTime)
	g, err := generator.NewSnowflake(1, generator.WithClock(clock), generator.WithBackwardTolerance(0))
	require.NoError(t, err)
	_, err = g.Next()
	require.NoError(t, err)
	clock.Set(baseTime.Add(-time.Hour))
	f := mongocompat.NewFiller(mongocompat.WithSnowflake(g))
	d := &snowDoc{}
	_, _, err = f.FillID(d)
	assert.ErrorIs(t, err, generator.ErrClockMovedBackwards)
	assert.Zero(t, d.ID)
}

func TestFillIDObjectIDGenerator(t *testing.T) {
	clock := generatortest.NewFakeClock(baseTime)
	g, err := generator.NewObjectID(generator.WithClock(clock), generator.WithWorkerID(7))
	require.NoError(t, err)
	f := mongocompat.NewFiller(mongocompat.WithObjectID(g))
	d := &objDoc{}
	_, _, err = f.FillID(d)
	require.NoError(t, err)
	assert.Equal(t, baseTime, d.ID.Timestamp())
	assert.Equal(t, g.ProcessUnique(), d.ID.ProcessUnique())
}

// A nil generator means the default, as in gormplugin: WithObjectID(nil)
// takes ObjectIDs from types.NewObjectID again, and WithSnowflake(nil)
// leaves no Snowflake generator. The zero Option is ignored.
func TestNilGeneratorMeansDefault(t *testing.T) {
	clock := generatortest.NewFakeClock(baseTime)
	og, err := generator.NewObjectID(generator.WithClock(clock), generator.WithWorkerID(7))
	require.NoError(t, err)
	sg, _ := snowflakeGen(t)
	f := mongocompat.NewFiller(mongocompat.WithObjectID(og), mongocompat.WithSnowflake(sg),
		mongocompat.WithObjectID(nil), mongocompat.WithSnowflake(nil), mongocompat.Option{})
	o := &objDoc{}
	_, _, err = f.FillID(o)
	require.NoError(t, err)
	assert.NotEqual(t, og.ProcessUnique(), o.ID.ProcessUnique(), "the ObjectID came from the given generator")
	assert.NotEqual(t, baseTime, o.ID.Timestamp())
	_, _, err = f.FillID(&snowDoc{})
	assert.ErrorIs(t, err, generator.ErrNoSnowflakeGenerator)
}

func TestFillIDs(t *testing.T) {
	g, _ := snowflakeGen(t)
	f := mongocompat.NewFiller(mongocompat.WithSnowflake(g))
	set := types.NewObjectID()

	t.Run("slice of structs filled in place", func(t *testing.T) {
		docs := []objDoc{{}, {ID: set}, {}}
		ids, err := f.FillIDs(docs)
		require.NoError(t, err)
		require.Len(t, ids, 3)
		for i, d := range docs {
			assert.False(t, d.ID.IsZero())
			assert.Equal(t, d.ID, ids[i])
		}
		assert.Equal(t, set, docs[1].ID)
		assert.Negative(t, docs[0].ID.Compare(docs[2].ID), "generation order")
	})
	t.Run("mixed []any", func(t *testing.T) {
		docs := []any{&objDoc{}, snowDoc{}, bson.M{}, nil, &nullIDDoc{}}
		ids, err := f.FillIDs(docs)
		require.NoError(t, err)
		assert.Equal(t, docs[0].(*objDoc).ID, ids[0])
		assert.Equal(t, docs[1].(snowDoc).ID, ids[1])
		assert.NotZero(t, ids[1])
		assert.Nil(t, ids[2])
		assert.Nil(t, ids[3])
		assert.True(t, docs[4].(*nullIDDoc).ID.Valid)
	})
	t.Run("checked before any is filled", func(t *testing.T) {
		docs := []any{&objDoc{}, &snowDoc{}}
		_, err := new(mongocompat.Filler).FillIDs(docs) // no Snowflake generator
		require.ErrorIs(t, err, generator.ErrNoSnowflakeGenerator)
		assert.True(t, docs[0].(*objDoc).ID.IsZero(), "nothing filled on error")
	})
	t.Run("array by value", func(t *testing.T) {
		_, err := f.FillIDs([1]objDoc{})
		assert.ErrorIs(t, err, types.ErrNotAddressable)
		arr := [2]objDoc{}
		_, err = f.FillIDs(&arr)
		require.NoError(t, err)
		assert.False(t, arr[1].ID.IsZero())
	})
	t.Run("not a slice", func(t *testing.T) {
		_, err := f.FillIDs(&objDoc{})
		assert.ErrorIs(t, err, mongocompat.ErrInvalidDocument)
		ids, err := f.FillIDs(nil)
		assert.NoError(t, err)
		assert.Nil(t, ids)
	})
}

// TestFillConcurrent fills many documents of several types from many
// goroutines (the per-type plans are cached concurrently) and checks that
// no key repeats.
func TestFillConcurrent(t *testing.T) {
	g, err := generator.NewSnowflake(3)
	require.NoError(t, err)
	f := mongocompat.NewFiller(mongocompat.WithSnowflake(g))
	const workers, each = 8, 200
	var (
		mu   sync.Mutex
		seen = map[any]bool{}
		wg   sync.WaitGroup
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				var doc any = &objDoc{}
				if (w+i)%2 == 1 {
					doc = &snowDoc{}
				}
				id, filled, err := f.FillID(doc)
				if !assert.NoError(t, err) || !assert.True(t, filled) {
					return
				}
				mu.Lock()
				assert.False(t, seen[id], "duplicate %v", id)
				seen[id] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	assert.Len(t, seen, workers*each)
}
