package kubelease

import (
	"context"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestAPIServerSmoke(t *testing.T) {
	s := startAPIServer(t)
	c := s.Client()
	ctx := context.Background()
	l, err := c.CoordinationV1().Leases("default").Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "smoke"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("created lease rv %s", l.ResourceVersion)
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	got, err := c.CoordinationV1().Leases("default").Get(ctx, "smoke", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.ResourceVersion != l.ResourceVersion {
		t.Fatalf("rv %s after restart, want %s", got.ResourceVersion, l.ResourceVersion)
	}
}
