// Package ipaddr is the part of net/netip the module needs: an IP address
// value, a parser that accepts and rejects exactly what [netip.ParseAddr]
// does, netip's text form of an address, and prefixes with Contains.
//
// It exists because net/netip brings the unique and weak packages and their
// runtime hooks into the WebAssembly module (make bench prints its size); see
// RATIONALE.md, "Why does the module carry its own JSON, URL and text
// code?". The tests keep net/netip as the reference: every function here is
// compared with its netip counterpart in table tests and fuzz targets.
//
// [netip.ParseAddr]: https://pkg.go.dev/net/netip#ParseAddr
package ipaddr

import "strconv"

// Addr is an IPv4 or IPv6 address, and for IPv6 the zone it was written
// with ("eth0" in "fe80::1%eth0"). It is a small comparable value, like
// netip.Addr: == compares family, address and zone. The zero Addr is
// invalid; [Parse], [From4] and [From16] never return it.
type Addr struct {
	b    [16]byte // IPv4 is kept IPv4-mapped (::ffff:a.b.c.d), as netip does
	fam  uint8    // 0 (invalid), 4 or 6
	zone string   // IPv6 only
}

// From4 returns the IPv4 address with the given bytes.
func From4(b [4]byte) Addr {
	return Addr{b: [16]byte{10: 0xff, 11: 0xff, 12: b[0], 13: b[1], 14: b[2], 15: b[3]}, fam: 4}
}

// From16 returns the IPv6 address with the given bytes (an IPv4-mapped
// address stays IPv6, as with netip.AddrFrom16).
func From16(b [16]byte) Addr { return Addr{b: b, fam: 6} }

// IsValid reports whether a is not the zero Addr.
func (a Addr) IsValid() bool { return a.fam != 0 }

// Is4 reports whether a is an IPv4 address (not an IPv4-mapped IPv6 one).
func (a Addr) Is4() bool { return a.fam == 4 }

// Is6 reports whether a is an IPv6 address, IPv4-mapped ones included.
func (a Addr) Is6() bool { return a.fam == 6 }

// Is4In6 reports whether a is an IPv4-mapped IPv6 address (::ffff:0:0/96).
func (a Addr) Is4In6() bool { return a.fam == 6 && a.isMapped() }

func (a Addr) isMapped() bool {
	for _, c := range a.b[:10] {
		if c != 0 {
			return false
		}
	}
	return a.b[10] == 0xff && a.b[11] == 0xff
}

// Zone returns a's IPv6 zone, or "".
func (a Addr) Zone() string { return a.zone }

// As16 returns a's 16 bytes; an IPv4 address comes back IPv4-mapped.
func (a Addr) As16() [16]byte { return a.b }

// Unmap returns the IPv4 address of an IPv4-mapped a (without its zone), or
// a itself.
func (a Addr) Unmap() Addr {
	if a.Is4In6() {
		return Addr{b: a.b, fam: 4}
	}
	return a
}

// IsLoopback reports whether a is in 127.0.0.0/8 or is ::1; an
// IPv4-mapped address is judged by its IPv4 address.
func (a Addr) IsLoopback() bool {
	a = a.Unmap()
	switch a.fam {
	case 4:
		return a.b[12] == 127
	case 6:
		return a.b == [16]byte{15: 1}
	}
	return false
}

// String returns a as netip.Addr.String does: dotted decimal for IPv4,
// "::ffff:" and dotted decimal for IPv4-mapped IPv6, RFC 5952 text for other
// IPv6 (lower-case hex, no leading zeros, the first longest run of two or
// more zero groups written "::"), then "%zone" when there is a zone. The
// zero Addr is "invalid IP".
func (a Addr) String() string {
	switch {
	case a.fam == 0:
		return "invalid IP"
	case a.fam == 4:
		return string(a.append4(make([]byte, 0, 15)))
	}
	out := make([]byte, 0, 46)
	if a.isMapped() {
		out = a.append4(append(out, "::ffff:"...))
	} else {
		out = a.append6(out)
	}
	if a.zone != "" {
		out = append(append(out, '%'), a.zone...)
	}
	return string(out)
}

func (a Addr) append4(out []byte) []byte {
	for i, c := range a.b[12:] {
		if i > 0 {
			out = append(out, '.')
		}
		out = strconv.AppendUint(out, uint64(c), 10)
	}
	return out
}

func (a Addr) append6(out []byte) []byte {
	group := func(i int) uint16 { return uint16(a.b[2*i])<<8 | uint16(a.b[2*i+1]) }
	// The first longest run of at least two zero groups becomes "::".
	runStart, runLen := -1, 1
	for i := 0; i < 8; {
		j := i
		for j < 8 && group(j) == 0 {
			j++
		}
		if j-i > runLen {
			runStart, runLen = i, j-i
		}
		i = j + 1
	}
	for i := 0; i < 8; i++ {
		if i == runStart {
			out = append(out, ':', ':')
			i += runLen - 1
			continue
		}
		if i > 0 && i != runStart+runLen {
			out = append(out, ':')
		}
		out = strconv.AppendUint(out, uint64(group(i)), 16)
	}
	return out
}

// Parse parses an IPv4 address in dotted decimal ("192.0.2.1": exactly four
// decimal parts of at most 255, no leading zeros) or an IPv6 address
// ("2001:db8::68", "::ffff:192.0.2.1", "fe80::1%eth0": hex groups of at
// most four digits, one "::" standing for at least one zero group, an IPv4
// address only in place of the last two groups, a non-empty zone after
// "%"). It accepts and rejects exactly what netip.ParseAddr does, and
// returns the same address.
//
// It says only whether s is an address, without netip's error texts: no
// caller shows why an address did not parse, so no message a user sees
// depended on them.
func Parse(s string) (Addr, bool) {
	// Like netip, the first '.', ':' or '%' decides what s must be.
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.':
			var b [4]byte
			if !parse4(s, &b) {
				return Addr{}, false
			}
			return From4(b), true
		case ':':
			return parse6(s)
		case '%':
			return Addr{}, false
		}
	}
	return Addr{}, false
}

// parse4 reads exactly four dot-separated decimal parts into b.
func parse4(s string, b *[4]byte) bool {
	part, digits, val := 0, 0, 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '.' {
			if digits == 0 || part == 4 {
				return false
			}
			b[part] = byte(val)
			part, digits, val = part+1, 0, 0
			continue
		}
		c := s[i]
		if c < '0' || c > '9' || (digits == 1 && val == 0) {
			return false
		}
		val = val*10 + int(c-'0')
		digits++
		if val > 255 {
			return false
		}
	}
	return part == 4
}

func hexDigit(c byte) (uint16, bool) {
	switch {
	case '0' <= c && c <= '9':
		return uint16(c - '0'), true
	case 'a' <= c && c <= 'f':
		return uint16(c-'a') + 10, true
	case 'A' <= c && c <= 'F':
		return uint16(c-'A') + 10, true
	}
	return 0, false
}

// parse6 reads an IPv6 address with an optional zone.
func parse6(s string) (Addr, bool) {
	zone := ""
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if i == len(s)-1 {
				return Addr{}, false
			}
			s, zone = s[:i], s[i+1:]
			break
		}
	}
	var b [16]byte
	n := 0    // bytes filled
	gap := -1 // byte offset where "::" stands
	if len(s) >= 2 && s[0] == ':' && s[1] == ':' {
		gap, s = 0, s[2:]
	}
	for s != "" {
		if n == 16 {
			return Addr{}, false
		}
		var v uint16
		d := 0
		for ; d < len(s); d++ {
			h, ok := hexDigit(s[d])
			if !ok {
				break
			}
			if d == 4 {
				return Addr{}, false
			}
			v = v<<4 | h
		}
		if d == 0 {
			return Addr{}, false
		}
		if d < len(s) && s[d] == '.' {
			// An embedded IPv4 address ends the address and fills the
			// last four bytes (before or after a "::").
			if (gap < 0 && n != 12) || n > 12 {
				return Addr{}, false
			}
			var v4 [4]byte
			if !parse4(s, &v4) {
				return Addr{}, false
			}
			copy(b[n:], v4[:])
			n += 4
			s = ""
			break
		}
		b[n], b[n+1] = byte(v>>8), byte(v)
		n += 2
		s = s[d:]
		if s == "" {
			break
		}
		if s[0] != ':' || len(s) == 1 {
			return Addr{}, false
		}
		s = s[1:]
		if s[0] == ':' {
			if gap >= 0 {
				return Addr{}, false
			}
			gap, s = n, s[1:]
		}
	}
	switch {
	case n < 16 && gap < 0, n == 16 && gap >= 0:
		return Addr{}, false
	case n < 16:
		shift := 16 - n
		copy(b[gap+shift:], b[gap:n])
		clear(b[gap : gap+shift])
	}
	return Addr{b: b, fam: 6, zone: zone}, true
}

// Prefix is an address and a number of leading bits (a CIDR block such as
// "10.0.0.0/8"). The zero Prefix contains nothing.
type Prefix struct {
	addr Addr
	bits int
}

// MustParsePrefix parses "address/bits" as netip.ParsePrefix does (no zone,
// bits in decimal without a sign or leading zeros, at most 32 for IPv4 and
// 128 for IPv6) and panics if s is not such a prefix. It is meant for
// literal tables.
func MustParsePrefix(s string) Prefix {
	p, ok := parsePrefix(s)
	if !ok {
		panic("ipaddr: invalid prefix " + strconv.Quote(s))
	}
	return p
}

func parsePrefix(s string) (Prefix, bool) {
	slash := -1
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			slash = i
			break
		}
	}
	if slash < 0 {
		return Prefix{}, false
	}
	a, ok := Parse(s[:slash])
	if !ok || a.zone != "" {
		return Prefix{}, false
	}
	bits := s[slash+1:]
	if bits == "" || len(bits) > 3 || (len(bits) > 1 && bits[0] == '0') {
		return Prefix{}, false
	}
	n := 0
	for i := 0; i < len(bits); i++ {
		if bits[i] < '0' || bits[i] > '9' {
			return Prefix{}, false
		}
		n = n*10 + int(bits[i]-'0')
	}
	if n > 128 || (a.fam == 4 && n > 32) {
		return Prefix{}, false
	}
	return Prefix{addr: a, bits: n}, true
}

// Contains reports whether a is in p, with netip.Prefix.Contains's rules:
// an address of the other family (an IPv4-mapped address is IPv6), an
// address with a zone and the zero Addr are in no prefix.
func (p Prefix) Contains(a Addr) bool {
	if p.addr.fam == 0 || a.fam != p.addr.fam || a.zone != "" {
		return false
	}
	start, bits := 0, p.bits
	if a.fam == 4 {
		start = 12
	}
	for i := start; bits > 0; i, bits = i+1, bits-8 {
		diff := a.b[i] ^ p.addr.b[i]
		if bits < 8 {
			return diff>>(8-bits) == 0
		}
		if diff != 0 {
			return false
		}
	}
	return true
}
