// Command mongo shows idkit IDs in MongoDB with the official Go drivers. It
// needs no setup: it starts FerretDB embedded in the process (or uses the
// server at IDKIT_MONGODB_URI), inserts documents keyed by idkit IDs that
// are known before the write, and reads them back with the v2 and v1
// drivers.
//
//	go run ./examples/mongo
//	IDKIT_MONGODB_URI=mongodb://127.0.0.1:27017/ go run ./examples/mongo
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	mongo1 "go.mongodb.org/mongo-driver/mongo"
	options1 "go.mongodb.org/mongo-driver/mongo/options"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/mongocompat"
	"github.com/idkit-go/idkit/mongocompat/mongotest"
	"github.com/idkit-go/idkit/mongocompat/mongov1"
	"github.com/idkit-go/idkit/mongocompat/mongov2"
	"github.com/idkit-go/idkit/types"
)

// Order is keyed by a Snowflake, stored as a BSON int64.
type Order struct {
	ID   types.Snowflake `bson:"_id"`
	Item string          `bson:"item"`
}

// Event is keyed by an ObjectID, stored as a BSON ObjectId.
type Event struct {
	ID    types.ObjectID     `bson:"_id"`
	Order types.Snowflake    `bson:"order"`
	What  string             `bson:"what"`
	Prev  types.NullObjectID `bson:"prev"` // BSON null when not set
}

func main() {
	if code, done := parseArgs(os.Args[1:], os.Stderr); done {
		os.Exit(code)
	}
	log.SetFlags(0)
	if err := run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

// parseArgs handles the command line: -h prints the usage (done, status 0),
// anything else given is a bad command line (done, status 2).
func parseArgs(args []string, stderr io.Writer) (code int, done bool) {
	fs := flag.NewFlagSet("mongo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: go run ./examples/mongo

Inserts documents keyed by idkit IDs into MongoDB and reads them back with
the v2 and v1 drivers. With no setup it runs FerretDB embedded in the
process; set %s to use another server, for example a real
mongod (its database idkit_example is dropped at the end). It takes no
flags or arguments.
`, mongotest.EnvURI)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, true
		}
		return 2, true
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return 2, true
	}
	return 0, false
}

func run(ctx context.Context) error {
	srv, err := mongotest.Start()
	if err != nil {
		return err
	}
	defer srv.Close()

	client, err := mongo.Connect(options.Client().ApplyURI(srv.URI()).SetTimeout(10 * time.Second))
	if err != nil {
		return err
	}
	defer client.Disconnect(ctx)
	db := client.Database("idkit_example")
	defer db.Drop(ctx)

	// Keys are filled before the write: the application has them at once.
	node, err := generator.NewSnowflake(1) // node 1 must be this process's alone
	if err != nil {
		return err
	}
	filler := mongocompat.NewFiller(mongocompat.WithSnowflake(node))
	orders := []Order{{Item: "book"}, {Item: "pen"}, {Item: "lamp"}}
	if _, err := mongov2.InsertMany(ctx, filler, db.Collection("orders"), orders); err != nil {
		return err
	}
	fmt.Println("orders (Snowflake _id, BSON int64):")
	for _, o := range orders {
		parts, err := generator.Twitter().Decompose(o.ID)
		if err != nil {
			return err
		}
		fmt.Printf("  %d  %-4s  time=%s node=%d sequence=%d\n", o.ID, o.Item, parts.Time.Format(time.RFC3339Nano), parts.Node, parts.Sequence)
	}

	events := db.Collection("events")
	var prev types.NullObjectID
	for _, o := range orders {
		e := &Event{Order: o.ID, What: "ordered " + o.Item, Prev: prev}
		if _, err := mongov2.InsertOne(ctx, filler, events, e); err != nil {
			return err
		}
		prev = types.NullObjectID{ID: e.ID, Valid: true}
	}

	// The ObjectID's timestamp makes "created in this window" a range scan
	// on _id.
	now := time.Now()
	filter := bson.M{"_id": bson.M{
		"$gte": types.ObjectIDFromTime(now.Add(-time.Minute)),
		"$lt":  types.ObjectIDFromTime(now.Add(time.Minute)),
	}}
	cur, err := events.Find(ctx, filter, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return err
	}
	var got []Event
	if err := cur.All(ctx, &got); err != nil {
		return err
	}
	fmt.Println("events of the last minute (ObjectID _id, BSON ObjectId), by _id:")
	for _, e := range got {
		fmt.Printf("  %s  %-13s time=%s prev=%v\n", e.ID, e.What, e.ID.Timestamp().Format(time.RFC3339), nullString(e.Prev))
	}

	// A second insert of the same key is the driver's duplicate-key error.
	_, err = events.InsertOne(ctx, got[0])
	fmt.Println("insert again:", "duplicate key =", mongo.IsDuplicateKeyError(err))

	// The v1 driver reads the same documents through mongov1's codecs.
	c1, err := mongo1.Connect(ctx, options1.Client().ApplyURI(srv.URI()).SetRegistry(mongov1.Registry()))
	if err != nil {
		return err
	}
	defer c1.Disconnect(ctx)
	var first Event
	if err := c1.Database("idkit_example").Collection("events").FindOne(ctx, bson.M{"_id": got[0].ID}).Decode(&first); err != nil {
		return err
	}
	fmt.Println("read with driver v1:", first.ID, first.What, "same =", first == got[0])
	return nil
}

func nullString(n types.NullObjectID) string {
	if !n.Valid {
		return "null"
	}
	return n.ID.String()
}
