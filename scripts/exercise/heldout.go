package main

// heldOut holds, for each exercise, mistakes that its fence does not list: the check injects them
// as it does the listed ones, to see how well the tests catch what their authors did not think
// of. Each is one of three classic slips (a wrong constant, a transposed operand, an off-by-one),
// written here rather than in the chapters so that the tests were not written with them in view.
// Says is what a failure that names the slip would say; the check counts how many do, and fails
// when one is not caught at all.
var heldOut = map[string][]mistake{}

// slip writes a held-out mistake of one hunk: the solution lines old replaced by the lines new.
func slip(desc, says string, old []string, new ...string) mistake {
	return mistake{Desc: desc, Says: says, Hunks: []hunk{{Old: old, New: new}}}
}

// lines is a list of solution lines, for slip.
func lines(l ...string) []string { return l }
