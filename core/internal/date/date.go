// Package date reads the few date layouts core meets (DeepSeek's result
// dates and page ages, Retry-After HTTP-dates) and writes a day as
// "2006-01-02", without package time, whose initialisation and parser
// would be linked into the module (see RATIONALE.md).
//
// [Parse] takes a layout written as package time writes it and, for every
// layout core uses, accepts exactly what time.Parse accepted in the module
// and gives the same instant. That includes time's leniencies: a space in
// the layout matches any run of spaces, "15" and "2" take one or two digits,
// a fraction of a second (after '.' or ',') is read after "05" even when
// the layout has none, month and weekday names match in any case and the
// weekday is not checked against the date, "06" is 1969–2068 (and, like
// time, reads "+5" as 2005 and "-5" as 1995), and a day is checked against
// its month and leap years. A zone abbreviation ("MST" in the layout) is
// checked for its shape only and read as UTC, as the module's time package
// did: its local zone has no abbreviations, so neither "EST" nor "GMT+5"
// moved the instant. Natively, time.Parse used the machine's zone for an
// abbreviation it knew; this package does not.
//
// Only these layout elements are understood, and anything else in a layout
// is literal text: 2006 06 01 Jan January 02 2 _2 Mon Monday 15 04 05
// .999999999 Z07:00 -0700 MST. The equivalence test holds every layout
// core uses to time.Parse; a new layout must be added there.
package date

import "strconv"

// Time is an instant with nanosecond precision.
type Time struct {
	sec  int64 // since the Unix epoch
	nsec int32 // within sec, [0, 1e9)
}

// zeroSec is time.Time{}'s instant, January 1 of year 1, 00:00 UTC, in
// Unix seconds.
const zeroSec = -62135596800

// UnixMilli returns t as milliseconds since the Unix epoch, rounded down
// as time.Time.UnixMilli rounds.
func (t Time) UnixMilli() int64 { return t.sec*1000 + int64(t.nsec)/1e6 }

// Nanosecond returns the nanoseconds within t's second, in [0, 1e9).
func (t Time) Nanosecond() int { return int(t.nsec) }

// IsZero reports whether t is the instant of the zero time.Time, January 1
// of year 1, 00:00:00 UTC, which core's callers used to mean "no date".
func (t Time) IsZero() bool { return t.sec == zeroSec && t.nsec == 0 }

// Parse reads s in layout (see the package comment). It returns false when
// time.Parse would have returned an error.
func Parse(layout, s string) (Time, bool) {
	year, month, day := 0, 1, 1
	hour, minute, sec, nsec := 0, 0, 0, 0
	offset := 0 // seconds east of UTC
	var ok bool
	for layout != "" {
		elem, n := element(layout)
		if elem == literal {
			if layout[0] == ' ' {
				// A space matches any run of spaces, or the end.
				if s != "" && s[0] != ' ' {
					return Time{}, false
				}
				layout, s = trimSpaces(layout), trimSpaces(s)
				continue
			}
			if s == "" || s[0] != layout[0] {
				return Time{}, false
			}
			layout, s = layout[1:], s[1:]
			continue
		}
		layout = layout[n:]
		switch elem {
		case longYear:
			if len(s) < 4 || !isDigit(s, 0) {
				return Time{}, false
			}
			if year, ok = digits(s[:4]); !ok {
				return Time{}, false
			}
			s = s[4:]
		case year2:
			if year, s, ok = twoDigitYear(s); !ok {
				return Time{}, false
			}
		case zeroMonth:
			if month, s, ok = number(s, true); !ok || month < 1 || month > 12 {
				return Time{}, false
			}
		case shortMonth, longMonth:
			names := longMonths[:]
			if elem == shortMonth {
				names = shortMonths[:]
			}
			i := 0
			if i, s = lookup(names, s); i < 0 {
				return Time{}, false
			}
			month = i + 1
		case shortWeekday, longWeekday:
			names := longDays[:]
			if elem == shortWeekday {
				names = shortDays[:]
			}
			i := 0
			if i, s = lookup(names, s); i < 0 {
				return Time{}, false
			}
		case zeroDay, day1, underDay:
			if elem == underDay && s != "" && s[0] == ' ' {
				s = s[1:]
			}
			// Any one or two digits; checked against the month at the end.
			if day, s, ok = number(s, elem == zeroDay); !ok {
				return Time{}, false
			}
		case hour24:
			if hour, s, ok = number(s, false); !ok || hour >= 24 {
				return Time{}, false
			}
		case zeroMinute:
			if minute, s, ok = number(s, true); !ok || minute >= 60 {
				return Time{}, false
			}
		case zeroSecond:
			if sec, s, ok = number(s, true); !ok || sec >= 60 {
				return Time{}, false
			}
			// time reads a fraction here unless the layout's next element
			// is one.
			if len(s) >= 2 && (s[0] == '.' || s[0] == ',') && isDigit(s, 1) && !nextIsFraction(layout) {
				nsec, s = fraction(s)
			}
		case fraction9:
			if len(s) >= 2 && (s[0] == '.' || s[0] == ',') && isDigit(s, 1) {
				nsec, s = fraction(s)
			}
		case isoColonZone:
			if s != "" && s[0] == 'Z' {
				s, offset = s[1:], 0
				break
			}
			if len(s) < 6 || s[3] != ':' {
				return Time{}, false
			}
			if offset, ok = zoneOffset(s[0], s[1:3], s[4:6]); !ok {
				return Time{}, false
			}
			s = s[6:]
		case numZone:
			if len(s) < 5 {
				return Time{}, false
			}
			if offset, ok = zoneOffset(s[0], s[1:3], s[3:5]); !ok {
				return Time{}, false
			}
			s = s[5:]
		case zoneName:
			// Read as UTC whatever the name (see the package comment).
			n := 3
			if len(s) < 3 || s[:3] != "UTC" {
				if n = zoneNameLen(s); n == 0 {
					return Time{}, false
				}
			}
			s = s[n:]
		}
	}
	if s != "" || day < 1 || day > daysIn(month, year) {
		return Time{}, false
	}
	secs := daysFromCivil(int64(year), month, day)*86400 + int64(hour*3600+minute*60+sec-offset)
	return Time{sec: secs, nsec: int32(nsec)}, true
}

// RFC3339Nano is time.RFC3339Nano, the layout of DeepSeek's result dates.
const RFC3339Nano = "2006-01-02T15:04:05.999999999Z07:00"

// ParseRFC3339 is Parse(RFC3339Nano, s), sooner for the form nearly every
// result date has, "2024-05-01T10:00:00Z" (twenty bytes, no fraction, in
// UTC): Parse interprets its layout element by element, and a search
// parses ten dates.
func ParseRFC3339(s string) (Time, bool) {
	if len(s) == 20 && s[4] == '-' && s[7] == '-' && s[10] == 'T' && s[13] == ':' && s[16] == ':' && s[19] == 'Z' {
		year, ok1 := digits(s[0:4])
		month, ok2 := digits(s[5:7])
		day, ok3 := digits(s[8:10])
		hour, ok4 := digits(s[11:13])
		minute, ok5 := digits(s[14:16])
		sec, ok6 := digits(s[17:19])
		if ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && month >= 1 && month <= 12 && hour < 24 && minute < 60 && sec < 60 &&
			day >= 1 && day <= daysIn(month, year) {
			return Time{sec: daysFromCivil(int64(year), month, day)*86400 + int64(hour*3600+minute*60+sec)}, true
		}
	}
	return Parse(RFC3339Nano, s)
}

// FormatDay writes the UTC day of an instant given in Unix milliseconds as
// "2006-01-02", as time.Time.Format does: a year before 0 or after 9999
// has a '-' sign or more digits ("-0001-12-31", "10000-01-01").
func FormatDay(unixMilli int64) string {
	days := unixMilli / 86400000
	if unixMilli%86400000 < 0 {
		days--
	}
	y, m, d := civilFromDays(days)
	b := make([]byte, 0, 16)
	if y < 0 {
		b = append(b, '-')
		y = -y
	}
	for p := int64(1000); p > 1 && y < p; p /= 10 {
		b = append(b, '0')
	}
	b = strconv.AppendInt(b, y, 10)
	return string(append(b, '-', byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d/10), byte('0'+d%10)))
}

// The layout elements Parse understands.
const (
	literal      = iota
	longYear     // 2006
	year2        // 06
	zeroMonth    // 01
	shortMonth   // Jan
	longMonth    // January
	zeroDay      // 02
	day1         // 2
	underDay     // _2
	shortWeekday // Mon
	longWeekday  // Monday
	hour24       // 15
	zeroMinute   // 04
	zeroSecond   // 05
	fraction9    // .999999999
	isoColonZone // Z07:00
	numZone      // -0700
	zoneName     // MST
)

// elements lists each element's text, a longer text before any it starts
// with.
var elements = [...]struct {
	text string
	elem int
}{
	{"January", longMonth}, {"Jan", shortMonth},
	{"Monday", longWeekday}, {"Mon", shortWeekday}, {"MST", zoneName},
	{"2006", longYear}, {"2", day1}, {"_2", underDay},
	{"01", zeroMonth}, {"02", zeroDay}, {"04", zeroMinute}, {"05", zeroSecond}, {"06", year2},
	{"15", hour24}, {".999999999", fraction9}, {"Z07:00", isoColonZone}, {"-0700", numZone},
}

// element returns the element layout starts with and its length, or
// literal.
func element(layout string) (elem, n int) {
	for _, e := range elements {
		if len(layout) >= len(e.text) && layout[:len(e.text)] == e.text {
			return e.elem, len(e.text)
		}
	}
	return literal, 1
}

// nextIsFraction reports whether the first element in layout after any
// literal text is a fraction of a second.
func nextIsFraction(layout string) bool {
	for ; layout != ""; layout = layout[1:] {
		if elem, _ := element(layout); elem != literal {
			return elem == fraction9
		}
	}
	return false
}

func isDigit(s string, i int) bool { return i < len(s) && '0' <= s[i] && s[i] <= '9' }

func trimSpaces(s string) string {
	for s != "" && s[0] == ' ' {
		s = s[1:]
	}
	return s
}

// digits reads s, which must be all decimal digits (at most 4).
func digits(s string) (int, bool) {
	n := 0
	for i := range len(s) {
		if !isDigit(s, i) {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// number reads two digits, or when !fixed one or two, from the start of s.
func number(s string, fixed bool) (int, string, bool) {
	if !isDigit(s, 0) {
		return 0, s, false
	}
	if !isDigit(s, 1) {
		if fixed {
			return 0, s, false
		}
		return int(s[0] - '0'), s[1:], true
	}
	return int(s[0]-'0')*10 + int(s[1]-'0'), s[2:], true
}

// twoDigitYear reads "06": two characters, either two digits or a sign and
// a digit (time reads them with its signed atoi), 69–99 in the 1900s and
// the rest in the 2000s.
func twoDigitYear(s string) (int, string, bool) {
	if len(s) < 2 {
		return 0, s, false
	}
	var y int
	switch {
	case isDigit(s, 0) && isDigit(s, 1):
		y = int(s[0]-'0')*10 + int(s[1]-'0')
	case (s[0] == '+' || s[0] == '-') && isDigit(s, 1):
		y = int(s[1] - '0')
		if s[0] == '-' {
			y = -y
		}
	default:
		return 0, s, false
	}
	if y >= 69 {
		return y + 1900, s[2:], true
	}
	return y + 2000, s[2:], true
}

// fraction reads a separator and the digits after it, at least one, as
// nanoseconds; digits past the ninth are ignored.
func fraction(s string) (int, string) {
	n := 1
	for isDigit(s, n) {
		n++
	}
	ns, scale := 0, 1_000_000_000
	for i := 1; i < n && i <= 9; i++ {
		scale /= 10
		ns += int(s[i]-'0') * scale
	}
	return ns, s[n:]
}

// zoneOffset reads a numeric offset's sign, hours and minutes (two digits
// each; time allows up to 24 hours and 60 minutes) as seconds east of UTC.
func zoneOffset(sign byte, hh, mm string) (int, bool) {
	h, _, ok1 := number(hh, true)
	m, _, ok2 := number(mm, true)
	if !ok1 || !ok2 || h > 24 || m > 60 || sign != '+' && sign != '-' {
		return 0, false
	}
	if sign == '-' {
		return -(h*60 + m) * 60, true
	}
	return (h*60 + m) * 60, true
}

// zoneNameLen returns the length of the zone abbreviation s starts with, as
// time recognised one, or 0: three upper-case letters, four or five ending
// in 'T', "WITA", "ChST", "MeST", "GMT" with an optional signed hour up to
// 23, or just a signed hour.
func zoneNameLen(s string) int {
	if len(s) < 3 {
		return 0
	}
	if len(s) >= 4 && (s[:4] == "ChST" || s[:4] == "MeST") {
		return 4
	}
	if s[:3] == "GMT" {
		if len(s) == 3 {
			return 3
		}
		return 3 + signedHourLen(s[3:])
	}
	if s[0] == '+' || s[0] == '-' {
		return signedHourLen(s)
	}
	upper := 0
	for upper < 6 && upper < len(s) && 'A' <= s[upper] && s[upper] <= 'Z' {
		upper++
	}
	switch {
	case upper == 3:
		return 3
	case upper == 4 && (s[3] == 'T' || s[:4] == "WITA"):
		return 4
	case upper == 5 && s[4] == 'T':
		return 5
	}
	return 0
}

// signedHourLen returns the length of a sign and the digits after it when
// there is at least one digit and they read as at most 23, else 0.
func signedHourLen(s string) int {
	if s[0] != '+' && s[0] != '-' {
		return 0
	}
	n, v := 1, 0
	for isDigit(s, n) {
		if v = v*10 + int(s[n]-'0'); v > 23 {
			return 0
		}
		n++
	}
	if n == 1 {
		return 0
	}
	return n
}

var (
	shortMonths = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	longMonths  = [...]string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	shortDays   = [...]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	longDays    = [...]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
)

// lookup finds the first name s starts with, ignoring the case of ASCII
// letters, and returns its index and the rest of s, or -1.
func lookup(names []string, s string) (int, string) {
	for i, name := range names {
		if len(s) >= len(name) && equalFold(s[:len(name)], name) {
			return i, s[len(name):]
		}
	}
	return -1, s
}

// equalFold compares ASCII letters without case and other bytes exactly.
func equalFold(a, b string) bool {
	for i := range len(a) {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if x |= 0x20; x != y|0x20 || x < 'a' || x > 'z' {
			return false
		}
	}
	return true
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(month, year int) int {
	switch month {
	case 2:
		if isLeap(year) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil returns the days from 1970-01-01 to a day of the proleptic
// Gregorian calendar (year 0 is 1 BC), by Howard Hinnant's algorithm.
func daysFromCivil(y int64, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400 // [0, 399]
	mp := int64((m + 9) % 12)
	doy := (153*mp+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilFromDays is daysFromCivil's inverse.
func civilFromDays(days int64) (y int64, m, d int) {
	z := days + 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	m = int((mp+2)%12 + 1)
	y = yoe + era*400
	if m <= 2 {
		y++
	}
	return y, m, d
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}
