package node

import (
	"context"
	"fmt"
	"net"

	"github.com/idkit-go/idkit/generator"
)

// FromPrivateIP returns a source whose node ID is the low NodeBits bits of
// this host's first private IPv4 address (10/8, 172.16/12, 192.168/16,
// 100.64/10), as sony/sonyflake's.
//
// NodeID fails with an error wrapping [generator.ErrNodeOutOfRange] when the
// address's host part (outside its netmask) does not fit NodeBits, and
// [ErrNoNodeID] without a private address or node bits. A non-nil check is
// called with the ID (hosts of different subnets may collide); its error
// is returned wrapped, with [ErrNoNodeID].
func FromPrivateIP(layout generator.Layout, check func(ctx context.Context, id int64) error) generator.NodeSource {
	return sourceFunc(func(ctx context.Context) (int64, error) {
		addrs, err := interfaceAddrs()
		if err != nil {
			return 0, fmt.Errorf("%w: %w", ErrNoNodeID, err)
		}
		id, err := privateIPNode(addrs, layout.Spec().NodeBits)
		if err != nil {
			return 0, err
		}
		if check != nil {
			if err := check(ctx, id); err != nil {
				return 0, fmt.Errorf("%w: %d rejected: %w", ErrNoNodeID, id, err)
			}
		}
		return id, nil
	})
}

// privateIPNode is the rule of [FromPrivateIP] applied to addrs (as from
// [net.InterfaceAddrs]): the low nodeBits bits of the first private IPv4
// address. It returns an error wrapping [ErrNoNodeID] if there is none or
// nodeBits is 0 or above 32, and one wrapping [generator.ErrNodeOutOfRange]
// if that address's host part needs more than nodeBits bits. Addresses
// given as [*net.IPAddr] (no netmask) are treated as /32 host routes.
func privateIPNode(addrs []net.Addr, nodeBits uint8) (int64, error) {
	if nodeBits == 0 || nodeBits > 32 {
		return 0, fmt.Errorf("%w: %d node bits cannot hold an IPv4-derived id", ErrNoNodeID, nodeBits)
	}
	for _, a := range addrs {
		var ip net.IP
		mask := net.CIDRMask(32, 32)
		switch v := a.(type) {
		case *net.IPNet:
			ip, mask = v.IP, v.Mask
		case *net.IPAddr:
			ip = v.IP
		default:
			continue
		}
		ip4 := ip.To4()
		if ip4 == nil || !isPrivate(ip4) {
			continue
		}
		if len(mask) == net.IPv6len {
			mask = mask[12:]
		}
		var v, m uint32
		for i := range 4 {
			v = v<<8 | uint32(ip4[i])
			m = m<<8 | uint32(mask[i])
		}
		if host := v &^ m; host>>nodeBits != 0 {
			ones, _ := net.IPMask(mask).Size()
			return 0, fmt.Errorf("%w: host part of %s/%d needs more than %d node bits",
				generator.ErrNodeOutOfRange, ip4, ones, nodeBits)
		}
		return int64(v & (1<<nodeBits - 1)), nil
	}
	return 0, fmt.Errorf("%w: no private IPv4 address", ErrNoNodeID)
}

// interfaceAddrs is net.InterfaceAddrs, replaced by tests.
var interfaceAddrs = net.InterfaceAddrs

func isPrivate(ip net.IP) bool {
	return ip.IsPrivate() || ip[0] == 100 && ip[1]&0xc0 == 64
}
