// Package servertest holds mongocompat's tests against a MongoDB-compatible
// server: embedded FerretDB from mongotest, or the server IDKIT_MONGODB_URI
// names. They live in mongotest's module, so that idkit's own module does
// not require FerretDB. It has no code of its own.
package servertest
