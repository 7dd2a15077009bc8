// Package importcheck has no code: its test checks the import rules
// between idkit's packages (internal packages import no public one;
// generator/meteor and gormplugin do not compile generator/node; the ID
// types and generators compile no database driver; etcdlease imports no
// internal package of the root module).
package importcheck
