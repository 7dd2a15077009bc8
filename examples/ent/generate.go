package main

//go:generate go run entgo.io/ent/cmd/ent@v0.14.5 generate ./ent/schema
