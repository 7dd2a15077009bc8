//go:build !go1.27

package mongov1

import "go.mongodb.org/mongo-driver/bson/bsoncodec"

// registerStdUUID does nothing before Go 1.27, which has no package uuid.
func registerStdUUID(*bsoncodec.Registry) {}
