package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestMongoExampleRuns(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestMongoExampleArgs(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		done bool
	}{
		{nil, 0, false},
		{[]string{"-h"}, 0, true},
		{[]string{"--help"}, 0, true},
		{[]string{"extra"}, 2, true},
		{[]string{"-x"}, 2, true},
	} {
		var stderr strings.Builder
		code, done := parseArgs(tt.args, &stderr)
		if code != tt.code || done != tt.done {
			t.Errorf("%q: code %d, done %v; want %d, %v", tt.args, code, done, tt.code, tt.done)
		}
		if tt.done && !strings.Contains(stderr.String(), "Usage: go run ./examples/mongo") {
			t.Errorf("%q: no usage on stderr: %q", tt.args, stderr.String())
		}
	}
}
