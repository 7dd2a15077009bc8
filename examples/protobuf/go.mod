module github.com/idkit-go/idkit/examples/protobuf

go 1.26.0

require (
	github.com/idkit-go/idkit v0.1.0
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/jinzhu/inflection v1.0.0 // indirect
	github.com/jinzhu/now v1.1.5 // indirect
	golang.org/x/text v0.43.0 // indirect
	gorm.io/gorm v1.31.2 // indirect
)

replace github.com/idkit-go/idkit => ../..
