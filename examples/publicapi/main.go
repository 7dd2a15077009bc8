// Command publicapi shows public IDs in an HTTP API: the database keys
// users by Snowflakes, which the gormplugin makes before every INSERT, and
// the API's JSON shows only their public IDs ("user_1..."), which reveal no
// creation time, node or order. It runs on an embedded SQLite database:
//
//	go run ./examples/publicapi
//
// The key ring comes from $IDKIT_PUBLICID_KEYS (make one with 'idkit public
// key'); without it the program makes a throwaway key.
package main

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
	_ "modernc.org/sqlite" // pure-Go SQLite, registered as "sqlite"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/publicid"
	"github.com/idkit-go/idkit/types"
)

// User is keyed by a Snowflake in the database: a BIGINT that sorts by
// creation time.
type User struct {
	ID   types.Snowflake
	Name string
}

// userJSON is what the API sends: the public ID, never the key.
type userJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// api serves POST /users and GET /users/{id}.
type api struct {
	db    *gorm.DB
	users *publicid.Codec[types.Snowflake]
}

func (a *api) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /users", a.create)
	mux.HandleFunc("GET /users/{id}", a.get)
	return mux
}

func (a *api) create(w http.ResponseWriter, r *http.Request) {
	var in userJSON
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, "bad JSON", http.StatusBadRequest)
		return
	}
	user := User{Name: in.Name}
	if err := a.db.Create(&user).Error; err != nil { // the plugin sets user.ID
		http.Error(w, "cannot save", http.StatusInternalServerError)
		return
	}
	a.reply(w, http.StatusCreated, user)
}

func (a *api) get(w http.ResponseWriter, r *http.Request) {
	id, err := a.users.Decode(r.PathValue("id"))
	if err != nil { // wraps publicid.ErrInvalid: not the public ID of any user's key
		http.Error(w, "no such user", http.StatusNotFound)
		return
	}
	var user User
	if err := a.db.First(&user, id).Error; errors.Is(err, gorm.ErrRecordNotFound) {
		http.Error(w, "no such user", http.StatusNotFound)
		return
	} else if err != nil {
		http.Error(w, "cannot read", http.StatusInternalServerError)
		return
	}
	a.reply(w, http.StatusOK, user)
}

// reply sends user as JSON with its public ID. Encode refuses only a zero
// or negative key, which no stored row has.
func (a *api) reply(w http.ResponseWriter, status int, user User) {
	id, err := a.users.Encode(user.ID)
	if err != nil {
		http.Error(w, "cannot encode", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(userJSON{ID: id, Name: user.Name})
}

func main() {
	if err := run(os.Stdout, os.Getenv("IDKIT_PUBLICID_KEYS")); err != nil {
		log.Fatal(err)
	}
}

func run(w io.Writer, keys string) error {
	if keys == "" {
		secret := make([]byte, 32)
		rand.Read(secret)
		keys = "1:" + base64.RawURLEncoding.EncodeToString(secret)
	}
	users, err := publicid.New[types.Snowflake]("user", keys)
	if err != nil {
		return err
	}
	db, err := gorm.Open(sqlite.New(sqlite.Config{DriverName: "sqlite", DSN: "file::memory:"}),
		&gorm.Config{Logger: logger.Discard})
	if err != nil {
		return err
	}
	sqlDB, err := db.DB()
	if err != nil {
		return err
	}
	sqlDB.SetMaxOpenConns(1) // one in-memory database
	if err := db.Use(gormplugin.New(gormplugin.WithNode(1))); err != nil {
		return err
	}
	if err := db.AutoMigrate(&User{}); err != nil {
		return err
	}
	srv := httptest.NewServer((&api{db: db, users: users}).routes())
	defer srv.Close()

	var created []userJSON
	for _, name := range []string{"ada", "grace"} {
		resp, err := http.Post(srv.URL+"/users", "application/json", strings.NewReader(`{"name":"`+name+`"}`))
		if err != nil {
			return err
		}
		var u userJSON
		err = json.NewDecoder(resp.Body).Decode(&u)
		resp.Body.Close()
		if err != nil {
			return err
		}
		created = append(created, u)
	}
	var rows []User
	if err := db.Order("id").Find(&rows).Error; err != nil {
		return err
	}
	for i, u := range created {
		fmt.Fprintf(w, "POST /users %-6s -> id %s   (database key %d)\n", u.Name, u.ID, rows[i].ID)
	}
	for _, path := range []string{"/users/" + created[1].ID, "/users/" + strings.Replace(created[1].ID, "user_", "order_", 1)} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			return err
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Fprintf(w, "GET %s -> %d %s", path, resp.StatusCode, body)
	}
	return nil
}
