package gguf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// configFile is config.json as it is written: Config's keys plus those that moved between
// transformers versions. The hub's Qwen3-0.6B (transformers 4.51) writes
//
//	"rope_theta": 1000000, "rope_scaling": null, "torch_dtype": "bfloat16"
//
// and transformers 5 writes, for the same model,
//
//	"rope_parameters": {"rope_theta": 1000000.0, "rope_type": "default"}, "dtype": "bfloat16",
//	"layer_types": ["full_attention", ...], "bos_token_id": null
type configFile struct {
	Config
	TorchDType     string          `json:"torch_dtype"`
	RopeParameters map[string]any  `json:"rope_parameters"`
	RopeScaling    map[string]any  `json:"rope_scaling"`
	LayerTypes     []string        `json:"layer_types"`
	HiddenAct      string          `json:"hidden_act"`
	BOS            json.RawMessage `json:"bos_token_id"` // a number, null, or (eos) a list
	EOS            json.RawMessage `json:"eos_token_id"`
}

// ReadConfig reads and validates a Hugging Face config.json. Every problem is a *FormatError
// naming the file, the key and the byte where the key is written.
func ReadConfig(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	c, err := ParseConfig(b)
	return c, inFile(err, path)
}

// ParseConfig reads config.json in either form (see Config) and validates it. A RoPE variant
// other than the default, a sliding window or attention biases are refused with an error naming
// the key and its value.
func ParseConfig(data []byte) (Config, error) {
	var f configFile
	if err := json.Unmarshal(data, &f); err != nil {
		e := &FormatError{Format: "config.json", Field: "JSON", Offset: 0, Msg: "does not parse", Err: err}
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			e.Offset = max(se.Offset-1, 0)
		case errors.As(err, &te) && te.Field == "": // the file is a string, a number, a list...
			e.Msg = fmt.Sprintf("holds a JSON %s, not an object of keys", te.Value)
		case errors.As(err, &te):
			e.Field, e.Offset, e.Msg = strings.TrimPrefix(te.Field, "Config."), te.Offset, "has the wrong type"
		}
		return Config{}, e
	}
	c := f.Config
	var errs []error
	fail := func(field, format string, args ...any) {
		errs = append(errs, &FormatError{Format: "config.json", Field: field, Offset: keyOffset(data, field), Msg: fmt.Sprintf(format, args...)})
	}
	// where maps a Validate field to the key that holds it in this file, when the two differ.
	where := map[string]string{}
	if c.DType == "" {
		c.DType = f.TorchDType
	}
	var err error
	if c.BOSTokenID, err = tokenID(f.BOS); err != nil {
		fail("bos_token_id", "%v", err)
	}
	if c.EOSTokenID, err = tokenID(f.EOS); err != nil {
		fail("eos_token_id", "%v", err)
	}
	if f.HiddenAct != "" && f.HiddenAct != "silu" {
		fail("hidden_act", "%q is not supported: Qwen3's MLP uses silu", f.HiddenAct)
	}

	// RoPE: transformers 5 keeps theta and the variant in rope_parameters; older files have a
	// top-level rope_theta and a rope_scaling that is null for the default RoPE.
	if p := f.RopeParameters; p != nil {
		if theta, ok := p["rope_theta"]; ok {
			t, isNum := theta.(float64)
			switch {
			case !isNum:
				fail("rope_parameters.rope_theta", "%v is not a number", theta)
			case c.RopeTheta != 0 && c.RopeTheta != t:
				fail("rope_parameters.rope_theta", "%v disagrees with rope_theta %v", t, c.RopeTheta)
			default:
				c.RopeTheta = t
				where["rope_theta"] = "rope_parameters.rope_theta"
			}
		}
		if c.RopeType, err = ropeType(p, "rope_parameters", where); err != nil {
			fail(err.Error(), "has a value per layer type; the course implements one RoPE for every layer")
		}
	}
	if p := f.RopeScaling; p != nil && c.RopeType == "" {
		if c.RopeType, err = ropeType(p, "rope_scaling", where); err != nil {
			fail(err.Error(), "has a value per layer type; the course implements one RoPE for every layer")
		}
		if c.RopeType == "" {
			c.RopeType = "(none given)" // a rope_scaling without a type still scales something
			where["rope_type"] = "rope_scaling"
		}
	}
	for i, t := range f.LayerTypes {
		if t != "full_attention" {
			fail(fmt.Sprintf("layer_types[%d]", i), "%q is not supported: the course implements only full causal attention in every layer", t)
		}
	}
	if f.LayerTypes != nil && len(f.LayerTypes) != c.NumHiddenLayers {
		fail("layer_types", "lists %d layers, num_hidden_layers is %d", len(f.LayerTypes), c.NumHiddenLayers)
	}
	if err := c.Validate(); err != nil {
		eachFormatError(err, func(fe *FormatError) {
			fe.Format = "config.json"
			if w, ok := where[fe.Field]; ok {
				fe.Field = w
			}
			fe.Offset = keyOffset(data, fe.Field)
		})
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	return c, nil
}

// ropeType reads the variant of a rope_parameters or rope_scaling object: "rope_type", or "type"
// in older files. It records in where which key held it. An object of objects (one per layer
// type, as some transformers 5 models write) is an error naming the object.
func ropeType(p map[string]any, object string, where map[string]string) (string, error) {
	for _, v := range p {
		if _, nested := v.(map[string]any); nested {
			return "", errors.New(object)
		}
	}
	for _, key := range []string{"rope_type", "type"} {
		if t, ok := p[key]; ok {
			where["rope_type"] = object + "." + key
			if s, isString := t.(string); isString {
				return s, nil
			}
			return fmt.Sprint(t), nil
		}
	}
	return "", nil
}

// tokenID reads bos_token_id or eos_token_id: a number, a list (its first entry), or null or
// absent (-1).
func tokenID(raw json.RawMessage) (int, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return -1, nil
	}
	var one int
	if err := json.Unmarshal(raw, &one); err == nil {
		return one, nil
	}
	var many []int
	if err := json.Unmarshal(raw, &many); err != nil || len(many) == 0 {
		return -1, fmt.Errorf("%s is neither a token id nor a list of them", raw)
	}
	return many[0], nil
}

// keyOffset is the byte where a key is written in a JSON file: for "rope_parameters.rope_type",
// the first "rope_type" after the first "rope_parameters"; for "layer_types[3]", "layer_types".
// It is -1 when the key is not written (a default, or a value computed from others).
func keyOffset(data []byte, field string) int64 {
	field, _, _ = strings.Cut(field, "[")
	at := 0
	for _, key := range strings.Split(field, ".") {
		i := bytes.Index(data[at:], []byte(`"`+key+`"`))
		if i < 0 {
			return -1
		}
		at += i
	}
	return int64(at)
}
