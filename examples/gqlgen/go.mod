module github.com/idkit-go/idkit/examples/gqlgen

go 1.26.0

require (
	github.com/99designs/gqlgen v0.17.98
	github.com/idkit-go/idkit v0.1.0
	github.com/vektah/gqlparser/v2 v2.5.64
)

require (
	github.com/agnivade/levenshtein v1.2.2 // indirect
	github.com/coder/websocket v1.8.15 // indirect
	github.com/go-viper/mapstructure/v2 v2.5.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/hashicorp/golang-lru/v2 v2.0.7 // indirect
	github.com/jinzhu/inflection v1.0.0 // indirect
	github.com/jinzhu/now v1.1.5 // indirect
	github.com/sosodev/duration v1.4.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	gorm.io/gorm v1.31.2 // indirect
)

replace github.com/idkit-go/idkit => ../..
