package cli

import (
	"time"

	"github.com/idkit-go/idkit/cmd/idkit/internal/parse"
	"github.com/idkit-go/idkit/types"
)

// ordered returns the ordered ID of key, a key in form f (inspect's
// --form). A UUID that is not a version 8 key is an error: it is no key.
func ordered(key parse.ID, f types.Form) (parse.ID, error) {
	var err error
	id := key
	switch key.Kind {
	case parse.KindObjectID:
		id.ObjectID, err = f.OrderedObjectID(key.ObjectID)
	case parse.KindUUID:
		id.UUID, err = f.OrderedUUID(key.UUID)
	default:
		id.Snowflake, err = f.OrderedSnowflake(key.Snowflake)
	}
	return id, err
}

// mongoStart is a little before the first ObjectIDs were made: an older
// ObjectID time is rarely real.
var mongoStart = time.Date(2009, 1, 1, 0, 0, 0, 0, time.UTC)

// scatterHints returns the notes of an ID decoded without --form whose
// reading suggests a key in a scatter form: a version 8 UUID, an
// ObjectID time before 2009 or in the future, a Snowflake time within 30
// days of its layout's epoch or in the future. A scatter key decodes as an
// ordered ID to such times more often than not; the note says so, since
// nothing in the key can prove it.
func scatterHints(e *Env, id parse.ID, r record) []string {
	const hint = "a key in a scatter form decodes to a wrong time: pass --form to turn it back first"
	if id.Kind == parse.KindUUID {
		if id.UUID[6]>>4 == 8 && id.UUID[8]>>6 == 2 {
			return []string{"version 8 is the version of idkit's scatter keys (types.ShardBits): pass --form shard:S to decode one"}
		}
		return nil
	}
	if r.when.IsZero() || r.ID == "0" || r.ID == "000000000000000000000000" {
		return nil
	}
	future := r.when.After(e.Now().Add(futureSlack))
	switch {
	case id.Kind == parse.KindObjectID && (future || r.when.Before(mongoStart)):
		return []string{hint}
	case id.Kind == parse.KindSnowflake && (future || r.when.Sub(r.layout.Spec().Epoch) < 30*24*time.Hour):
		return []string{hint}
	}
	return nil
}
