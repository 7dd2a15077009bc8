package cli

import (
	"bufio"
	"fmt"
	"strings"
)

// input is one whitespace-separated word to process and where it came from.
type input struct {
	where string // "argument 2", "stdin line 7"
	text  string
}

// eachInput calls fn for each positional argument or, when there are none,
// for each whitespace-separated word of each line of e.Stdin. It reports a
// failure to read stdin on e.Stderr and returns false then.
func eachInput(e *Env, cmd string, args []string, fn func(in input)) bool {
	if len(args) > 0 {
		for i, a := range args {
			fn(input{fmt.Sprintf("argument %d", i+1), a})
		}
		return true
	}
	sc := bufio.NewScanner(e.Stdin)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for line := 1; sc.Scan(); line++ {
		for _, w := range strings.Fields(sc.Text()) {
			fn(input{fmt.Sprintf("stdin line %d", line), w})
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(e.Stderr, "idkit %s: reading stdin: %v\n", cmd, err)
		return false
	}
	return true
}
