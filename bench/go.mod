module github.com/idkit-go/idkit/bench

go 1.26.0

require (
	github.com/bwmarrin/snowflake v0.3.0
	github.com/google/uuid v1.6.0
	github.com/idkit-go/idkit v0.0.0
	github.com/oklog/ulid/v2 v2.1.2
	github.com/rs/xid v1.6.0
	github.com/sony/sonyflake v1.2.0
	go.mongodb.org/mongo-driver v1.17.10
	go.mongodb.org/mongo-driver/v2 v2.9.3
)

require (
	github.com/jinzhu/inflection v1.0.0 // indirect
	github.com/jinzhu/now v1.1.5 // indirect
	golang.org/x/text v0.39.0 // indirect
	gorm.io/gorm v1.31.2 // indirect
)

replace github.com/idkit-go/idkit => ../
