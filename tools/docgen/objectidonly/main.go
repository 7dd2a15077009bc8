// Command objectidonly prints one ObjectID: the smallest program that uses
// package types, whose build docgen measures with and without GORM.
package main

import (
	"fmt"

	"github.com/idkit-go/idkit/types"
)

func main() { fmt.Println(types.NewObjectID()) }
