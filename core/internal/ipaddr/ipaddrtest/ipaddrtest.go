// Package ipaddrtest lets tests hold ipaddr to net/netip, the reference it
// replaces in the module. Only tests import it, so the module never links
// net/netip through it.
package ipaddrtest

import (
	"net/netip"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/ipaddr"
)

// Netip is the netip.Addr that a stands for: the zero netip.Addr for the
// zero ipaddr.Addr, and an IPv6 address keeps its zone.
func Netip(a ipaddr.Addr) netip.Addr {
	b := a.As16()
	switch {
	case a.Is4():
		return netip.AddrFrom4([4]byte(b[12:]))
	case a.Is6():
		return netip.AddrFrom16(b).WithZone(a.Zone())
	}
	return netip.Addr{}
}
