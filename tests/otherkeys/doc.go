// Package otherkeys tests gormplugin.WithKeyFunc with key types from
// modules that idkit's own module does not require (oklog/ulid), so that a
// user's module graph does not carry them.
package otherkeys
