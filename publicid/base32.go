package publicid

// alphabet is TypeID's: Crockford's base32 digits in lower case (no i, l,
// o or u). Decoding accepts exactly these 32 characters.
const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// digitValue maps a character to its digit value, or to 0xff.
var digitValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i := range len(alphabet) {
		t[alphabet[i]] = byte(i)
	}
	return t
}()

// appendBase32 appends the low 5*digits bits of hi:lo as digits base32
// digits, most significant first (digits <= 26).
func appendBase32(dst []byte, hi, lo uint64, digits int) []byte {
	var buf [26]byte
	for i := digits - 1; i >= 0; i-- {
		buf[i] = alphabet[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return append(dst, buf[:digits]...)
}

// decodeBase32 reads s (at most 26 digits) as one big-endian number. It
// returns ok false if a character is not a digit of alphabet. The caller
// checks that the number fits its width.
func decodeBase32(s string) (hi, lo uint64, top byte, ok bool) {
	var bad byte
	for i := range len(s) {
		d := digitValue[s[i]]
		bad |= d
		hi = hi<<5 | lo>>59
		lo = lo<<5 | uint64(d&31)
	}
	if len(s) > 0 {
		top = digitValue[s[0]]
	}
	return hi, lo, top, bad < 32
}
