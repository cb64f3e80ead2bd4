package serve

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
)

// A field the decoder does not know is ignored (the OpenAI clients send many, see api.go), but
// one whose name is a slip away from a field it reads is a mistake: "temprature": 0.2 would
// otherwise be dropped without a word and the reply sampled at the default temperature. Such a
// field is refused with a 400 that names it and the field it resembles. A slip is an edit
// distance of 1 from a name of up to 5 letters, 2 from a longer one, after lowercasing and
// reading '-' as '_' (encoding/json matches names regardless of case, but not '-' for '_'). Fields of
// OpenAI's API that this server ignores on purpose are never a slip, whatever they resemble.

// ignoredFields are request fields of OpenAI's API (and of the servers learners meet next) that
// change nothing this server does, so it ignores them.
var ignoredFields = map[string]bool{
	"user": true, "metadata": true, "store": true, "service_tier": true, "parallel_tool_calls": true,
	"tool_choice": true, "prediction": true, "modalities": true, "audio": true, "reasoning_effort": true,
	"web_search_options": true, "prompt_cache_key": true, "safety_identifier": true, "verbosity": true,
	"functions": true, "function_call": true, "cache_prompt": true,
}

// misspelled returns the error for the first top-level key of body (a JSON object, decoded into
// wire, a struct whose json tags name the fields read), in byte-wise order of the names, that is a slip from a
// field read, naming the closest such field.
func misspelled(body []byte, wire any) *Error {
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return nil // decodeJSON has said what is wrong with it
	}
	known := jsonNames(reflect.TypeOf(wire))
	for _, key := range slices.Sorted(maps.Keys(fields)) {
		k := strings.ReplaceAll(strings.ToLower(key), "-", "_")
		if known[strings.ToLower(key)] || ignoredFields[k] { // as encoding/json matches names
			continue
		}
		best, bestD := "", 3
		for _, name := range slices.Sorted(maps.Keys(known)) {
			if d := editDistance(k, name); d < bestD && d <= 2-btoi(len(name) <= 5) {
				best, bestD = name, d
			}
		}
		if best != "" {
			return &Error{Status: http.StatusBadRequest, Type: typeInvalid, Code: codeUnknownParam, Param: key,
				Message: fmt.Sprintf("unknown parameter %q: did you mean %q? (this server would ignore %q)", key, best, key)}
		}
	}
	return nil
}

// jsonNames returns the json names of t's fields, those of embedded structs included.
func jsonNames(t reflect.Type) map[string]bool {
	names := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			for n := range jsonNames(f.Type) {
				names[n] = true
			}
			continue
		}
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			names[name] = true
		}
	}
	return names
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+btoi(a[i-1] != b[j-1]))
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
