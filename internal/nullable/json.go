package nullable

// TrimJSONSpace removes JSON's four whitespace characters (space, tab, CR,
// LF) from both ends of data; unlike bytes.TrimSpace it leaves other Unicode
// spaces, which are not valid around a JSON value, for the parser to reject.
// The ID types' JSON decoders share it.
func TrimJSONSpace(data []byte) []byte {
	for len(data) > 0 && isJSONSpace(data[0]) {
		data = data[1:]
	}
	for len(data) > 0 && isJSONSpace(data[len(data)-1]) {
		data = data[:len(data)-1]
	}
	return data
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// NoJSONID reports whether data is JSON null or the empty JSON string "",
// the two JSON forms of "no ID", surrounded by any JSON whitespace.
func NoJSONID(data []byte) bool {
	data = TrimJSONSpace(data)
	return string(data) == "null" || string(data) == `""`
}
