package types_test

import (
	"errors"
	"math"
	"testing"

	"github.com/idkit-go/idkit/types"
)

func TestSnowflakeStringParse(t *testing.T) {
	for _, v := range []int64{0, 1, 4096, 1541815603606036480, math.MaxInt64} {
		s := types.Snowflake(v)
		p, err := types.ParseSnowflake(s.String())
		if err != nil || p != s {
			t.Errorf("ParseSnowflake(%q) = %d, %v", s.String(), p, err)
		}
		if int64(s) != v || s.IsZero() != (v == 0) {
			t.Errorf("Int64/IsZero wrong for %d", v)
		}
	}
	if types.Snowflake(1).Compare(2) != -1 || types.Snowflake(2).Compare(1) != 1 || types.Snowflake(3).Compare(3) != 0 {
		t.Error("Compare wrong")
	}
}

func TestMustParseSnowflakePanics(t *testing.T) {
	defer func() {
		r := recover()
		if err, ok := r.(error); !ok || !errors.Is(err, types.ErrInvalidSnowflake) {
			t.Fatalf("panic value %v", r)
		}
	}()
	types.MustParseSnowflake("-5")
}
