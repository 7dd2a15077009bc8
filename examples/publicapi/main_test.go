package main

import (
	"regexp"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run(&out, "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	want := regexp.MustCompile(`^POST /users ada    -> id (user_1[0-9a-z]{13})   \(database key \d+\)
POST /users grace  -> id (user_1[0-9a-z]{13})   \(database key \d+\)
GET /users/(user_1[0-9a-z]{13}) -> 200 \{"id":"(user_1[0-9a-z]{13})","name":"grace"\}
GET /users/order_1[0-9a-z]{13} -> 404 no such user
$`)
	m := want.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("output:\n%s", out.String())
	}
	if m[2] != m[3] || m[3] != m[4] || m[1] == m[2] {
		t.Errorf("public IDs do not match: %v", m[1:])
	}
}
