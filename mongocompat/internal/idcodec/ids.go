package idcodec

// UseDocumentIDs sets inserted[i] to ids[i] wherever ids[i] is not nil and
// both have an element i. inserted is a driver's InsertManyResult.InsertedIDs
// and ids what mongocompat.Filler.FillIDs returned for the same documents,
// so the result holds each idkit key as its document holds it rather than
// as the driver decoded it (bson.ObjectID, primitive.ObjectID).
func UseDocumentIDs(inserted, ids []any) {
	for i := range min(len(inserted), len(ids)) {
		if ids[i] != nil {
			inserted[i] = ids[i]
		}
	}
}
