package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// box is one field of a bit diagram: its name and width, its bits, and its
// value.
type box struct {
	title string
	bits  string
	value string
}

// bitBox makes the box of a field of width bits holding v, with the bits
// grouped by group from the left.
func bitBox(name string, width int, v uint64, group int, value string) box {
	s := strconv.FormatUint(v, 2)
	s = strings.Repeat("0", width-len(s)) + s
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if i > 0 && i%group == 0 {
			b.WriteByte(' ')
		}
		b.WriteByte(s[i])
	}
	return box{title: fmt.Sprintf("%s %d", name, width), bits: b.String(), value: value}
}

// drawDiagram draws boxes side by side, most significant first, like the
// usual figure of a Snowflake ID's bit fields, starting a new row of boxes
// where a row would be wider than maxWidth. Each line starts with indent.
func drawDiagram(w io.Writer, indent string, boxes []box, maxWidth int) {
	for len(boxes) > 0 {
		n, width := 0, 1+len(indent)
		for n < len(boxes) {
			bw := boxWidth(boxes[n]) + 3
			if n > 0 && width+bw > maxWidth {
				break
			}
			width += bw
			n++
		}
		drawRow(w, indent, boxes[:n])
		boxes = boxes[n:]
	}
}

func boxWidth(b box) int { return max(len(b.title), len(b.bits), len(b.value)) }

func drawRow(w io.Writer, indent string, boxes []box) {
	rule := func(left, mid, right string) {
		parts := make([]string, len(boxes))
		for i, b := range boxes {
			parts[i] = strings.Repeat("─", boxWidth(b)+2)
		}
		fmt.Fprintf(w, "%s%s%s%s\n", indent, left, strings.Join(parts, mid), right)
	}
	text := func(pick func(box) string) {
		parts := make([]string, len(boxes))
		for i, b := range boxes {
			parts[i] = fmt.Sprintf(" %-*s ", boxWidth(b), pick(b))
		}
		fmt.Fprintf(w, "%s│%s│\n", indent, strings.Join(parts, "│"))
	}
	rule("┌", "┬", "┐")
	text(func(b box) string { return b.title })
	rule("├", "┼", "┤")
	text(func(b box) string { return b.bits })
	text(func(b box) string { return b.value })
	rule("└", "┴", "┘")
}
