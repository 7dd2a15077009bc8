package gormplugin_test

import (
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/sqltypes"
	"github.com/idkit-go/idkit/types"
)

// Order is keyed by a Snowflake; its hook records the key it saw.
type Order struct {
	ID     types.Snowflake
	Name   string
	SeenID types.Snowflake `gorm:"-"`
	Hooked bool            `gorm:"-"`
}

func (o *Order) BeforeCreate(*gorm.DB) error {
	o.SeenID, o.Hooked = o.ID, true
	return nil
}

// Event is keyed by an ObjectID.
type Event struct {
	ID     types.ObjectID
	Name   string
	SeenID types.ObjectID `gorm:"-"`
}

func (e *Event) BeforeCreate(*gorm.DB) error {
	e.SeenID = e.ID
	return nil
}

// Tagged opts plain Go types in with the idkit tag.
type Tagged struct {
	ID    int64               `gorm:"primaryKey;autoIncrement:false" idkit:"snowflake"`
	U     uint64              `idkit:"snowflake"`
	Hex   string              `gorm:"size:24" idkit:"objectid"`
	Raw   []byte              `idkit:"objectid"`
	NullS types.NullSnowflake `idkit:"snowflake"`
	NullO types.NullObjectID  `idkit:"objectid"`
	Plain types.NullObjectID  // untagged, not a key: stays NULL
	Fixed int64               `gorm:"<-:false" idkit:"snowflake"`
}

// Legacy has a plain integer key, tagged so that GORM does not make it
// auto-increment.
type Legacy struct {
	ID   int64 `gorm:"primaryKey;autoIncrement:false" idkit:"snowflake"`
	Name string
}

// AutoInc has a plain integer key GORM makes auto-increment: the plugin
// refuses to fill it.
type AutoInc struct {
	ID   int64 `gorm:"primaryKey" idkit:"snowflake"`
	Name string
}

// WithDefault has a column with a database default, so GORM adds RETURNING.
type WithDefault struct {
	ID   types.Snowflake
	Name string
	Seq  int `gorm:"default:(42)"`
}

// Composite has a composite key: only the tagged part is filled.
type Composite struct {
	Tenant int64           `gorm:"primaryKey;autoIncrement:false"`
	ID     types.Snowflake `gorm:"primaryKey" idkit:"snowflake"`
	Code   types.Snowflake `gorm:"primaryKey"`
	Name   string
}

// HexDoc stores its ObjectID key as hex text.
type HexDoc struct {
	ID   sqltypes.HexObjectID
	Name string
}

// PtrKey has a pointer key.
type PtrKey struct {
	ID   *types.ObjectID `gorm:"primaryKey"`
	Name string
}

// Base and PtrBase are embedded.
type Base struct {
	ID types.Snowflake `gorm:"primaryKey"`
}

type Embedded struct {
	Base
	Name string
}

type PtrBase struct {
	ID types.ObjectID `gorm:"primaryKey"`
}

type EmbeddedPtr struct {
	*PtrBase
	Name string
}

// Associations.
type Company struct {
	ID   types.Snowflake
	Name string
}

type Tag struct {
	ID   types.ObjectID
	Name string
}

type Profile struct {
	ID     types.ObjectID
	UserID types.Snowflake
	Bio    string
}

type Post struct {
	ID     types.Snowflake
	UserID types.Snowflake
	Title  string
}

type User struct {
	ID        types.Snowflake
	Name      string
	CompanyID types.Snowflake
	Company   Company
	Profile   Profile
	Posts     []Post
	Tags      []Tag `gorm:"many2many:user_tags"`
	ManagerID types.NullSnowflake
	Manager   *User
}

// ArrayKey has a plain [12]byte field, which database/sql cannot store: the
// plugin rejects it with ErrUnsupportedField.
type ArrayKey struct {
	ID  types.Snowflake
	Arr [12]byte `idkit:"objectid"`
}
