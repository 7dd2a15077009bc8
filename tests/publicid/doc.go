// Package publicid checks publicid against independent implementations:
// its TypeID form against go.jetify.com/typeid, the reference Go
// implementation of TypeID, and its FF1 against github.com/capitalone/fpe.
// It is a module of its own so that idkit's users' go.mod gains neither.
package publicid
