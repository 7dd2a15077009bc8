//go:build !go1.27

package mongov2

import "go.mongodb.org/mongo-driver/v2/bson"

// registerStdUUID does nothing before Go 1.27, which has no package uuid.
func registerStdUUID(*bson.Registry) {}
