// Package bench measures idkit against its peers side by side in one run.
// It is a separate module so the peers never enter idkit's go.mod.
package bench
