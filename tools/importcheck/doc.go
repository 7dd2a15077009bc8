// Package importcheck has no code: its test checks the import rules
// between idkit's packages (internal packages import no public one;
// generator/meteor and gormplugin do not compile generator/node; the ID
// types and generators compile no database driver; etcdlease and kubelease
// import no internal package of the root module; the four lease stores
// stand on package node's public contract and node imports none of them).
package importcheck
