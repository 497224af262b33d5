package jsonlite_test

import (
	"fmt"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/jsonlite"
)

// Writing an object by hand: the bytes are what json.Marshal writes.
func ExampleAppendString() {
	b := []byte(`{"title":`)
	b = jsonlite.AppendString(b, "Fish & <Chips>\n")
	b = append(b, `,"tags":`...)
	b = jsonlite.AppendStrings(b, []string{"food", "uk"})
	b = append(b, `,"score":`...)
	b, err := jsonlite.AppendFloat(b, 1e-7)
	if err != nil {
		panic(err)
	}
	b = append(b, `,"top":`...)
	b = jsonlite.AppendBool(b, true)
	b = append(b, '}')
	fmt.Println(string(b))
	// Output:
	// {"title":"Fish \u0026 \u003cChips\u003e\n","tags":["food","uk"],"score":1e-7,"top":true}
}

// Reading an object member by member, with the field names matched as
// encoding/json matches them.
func ExampleDecodeObject() {
	var (
		query string
		max   int
		ids   []uint32
	)
	err := jsonlite.DecodeObject([]byte(`{"Query":"go \u00e9","max":5,"ids":[1,2],"ignored":{"a":[]}}`), func(d *jsonlite.Decoder, key string) error {
		switch {
		case jsonlite.EqualFold([]byte(key), "query"):
			return d.String(&query)
		case jsonlite.EqualFold([]byte(key), "max"):
			return d.Int(&max)
		case jsonlite.EqualFold([]byte(key), "ids"):
			return d.Array(func(d *jsonlite.Decoder, i int) error {
				var id uint32
				err := d.Uint32(&id)
				ids = append(ids, id)
				return err
			})
		}
		return d.Skip()
	})
	fmt.Println(query, max, ids, err)

	err = jsonlite.DecodeObject([]byte(`{"max":2.5}`), func(d *jsonlite.Decoder, key string) error { return d.Int(&max) })
	fmt.Println(err)
	// Output:
	// go é 5 [1 2] <nil>
	// the number 2.5 is not an integer of this size
}

func ExampleUnquote() {
	s, ok := jsonlite.Unquote([]byte(` "tab\there \ud83d\ude42" `))
	fmt.Printf("%q %v\n", s, ok)
	_, ok = jsonlite.Unquote([]byte(`null`))
	fmt.Println(ok)
	// Output:
	// "tab\there 🙂" true
	// false
}
