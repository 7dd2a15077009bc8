// Package publicid checks that publicid's TypeID form interoperates with
// go.jetify.com/typeid, the reference Go implementation of TypeID, in a
// module of its own so that idkit's users' go.mod does not gain it.
package publicid
