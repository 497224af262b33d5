package core

// plainHost reports whether h is a domain name that the WHATWG host parser
// (internal/host) gives back unchanged: lower-case ASCII letters, digits,
// hyphens and dots, no empty label, and a last label that starts with a
// letter, so it is not a number and h is not an IPv4 address. Nearly every
// result's host is one; canonicalHost returns it without parsing, which
// allocated once per character in WebAssembly.
func plainHost(h string) bool {
	label := 0 // bytes in the label so far
	last := 0  // offset of the last label
	for i := 0; i < len(h); i++ {
		switch c := h[i]; {
		case c == '.':
			if label == 0 {
				return false
			}
			label, last = 0, i+1
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-':
			label++
		default:
			return false
		}
	}
	return label > 0 && h[last] >= 'a' && h[last] <= 'z'
}
