package tokenizer_test

import (
	"fmt"
	"path/filepath"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
	"github.com/qwen3go/qwen3go/reference"
)

func ExampleTokenizer_Encode() {
	tok, err := tokenizer.FromTokenizerJSON(filepath.Join(reference.TinyHFDir(), "tokenizer.json"))
	if err != nil {
		panic(err)
	}
	ids := tok.Encode("The capital of France is")
	fmt.Println(ids)
	for _, id := range ids {
		s, _ := tok.Token(id)
		fmt.Printf("%q\n", s)
	}
	text, _ := tok.Decode([]int{12095}, false)
	fmt.Printf("%q\n", text)
	// Output:
	// [785 6722 315 9625 374]
	// "The"
	// "Ġcapital"
	// "Ġof"
	// "ĠFrance"
	// "Ġis"
	// " Paris"
}

func ExampleTokenizer_Decode() {
	tok, err := tokenizer.FromTokenizerJSON(filepath.Join(reference.TinyHFDir(), "tokenizer.json"))
	if err != nil {
		panic(err)
	}
	ids := tok.Encode("<|im_start|>assistant\n<think>\nok\n</think>\n\nHi!<|im_end|>")
	all, _ := tok.Decode(ids, false)
	visible, _ := tok.Decode(ids, true) // <think> and </think> are not special: they stay
	fmt.Printf("%q\n%q\n", all, visible)
	_, err = tok.Decode([]int{9707, 999999}, false)
	fmt.Println(err)
	// Output:
	// "<|im_start|>assistant\n<think>\nok\n</think>\n\nHi!<|im_end|>"
	// "assistant\n<think>\nok\n</think>\n\nHi!"
	// tokenizer: id 999999 at index 1 is not a token (vocabulary size 151669)
}

func ExampleStreamDecoder() {
	tok, err := tokenizer.FromTokenizerJSON(filepath.Join(reference.TinyHFDir(), "tokenizer.json"))
	if err != nil {
		panic(err)
	}
	ids := tok.Encode("猫🫠") // the melting face emoji is 3 tokens, none of them a whole character
	fmt.Println(len(ids), "tokens for 2 characters")
	d := tok.NewStreamDecoder(true)
	for _, id := range ids {
		s, _ := d.Add(id)
		fmt.Printf("%d -> %q\n", id, s)
	}
	fmt.Printf("flush -> %q\n", d.Flush())
	// Output:
	// 4 tokens for 2 characters
	// 100472 -> "猫"
	// 9284 -> ""
	// 104 -> ""
	// 254 -> "🫠"
	// flush -> ""
}

func ExamplePreTokenize() {
	fmt.Printf("%q\n", tokenizer.PreTokenize("I'll pay $1234.50 for 2  apples!\n\nOK"))
	// Output:
	// ["I" "'ll" " pay" " $" "1" "2" "3" "4" "." "5" "0" " for" " " "2" " " " apples" "!\n\n" "OK"]
}

func ExampleByteToRune() {
	table := tokenizer.ByteToRune()
	fmt.Printf("%c %c %c %c\n", table['a'], table[' '], table['\n'], table[0xE7])
	// Output:
	// a Ġ Ċ ç
}

func ExampleApplyChatTemplate() {
	chat := []tokenizer.Message{
		{Role: "system", Content: "Be brief."},
		{Role: "user", Content: "Capital of France?"},
	}
	prompt, _ := tokenizer.ApplyChatTemplate(chat, tokenizer.ChatOptions{AddGenerationPrompt: true, EnableThinking: tokenizer.Bool(false)})
	fmt.Print(prompt)
	// Output:
	// <|im_start|>system
	// Be brief.<|im_end|>
	// <|im_start|>user
	// Capital of France?<|im_end|>
	// <|im_start|>assistant
	// <think>
	//
	// </think>
}
