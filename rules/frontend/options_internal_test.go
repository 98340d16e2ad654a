package frontend

import (
	"reflect"
	"testing"

	_ "github.com/rsconform/rsconform/internal/testtmp" // temporary files on tmpfs: see its doc
	rs "github.com/rsconform/rsconform/resourcesync"
	"github.com/rsconform/rsconform/rules/engine"
)

// options carries every field of the engine's ReadOptions to schema's, by
// name: a field the engine adds and the front end drops fails here.
func TestOptionsCarriesEveryField(t *testing.T) {
	in := engine.ReadOptions{Validate: true, OnEntries: func(*rs.Document) {}, Window: 7, Pool: rs.NewEntryPool(), Inline: true}
	src := reflect.ValueOf(in)
	for i := 0; i < src.NumField(); i++ {
		if src.Field(i).IsZero() {
			t.Fatalf("the test leaves engine.ReadOptions.%s unset: set it", src.Type().Field(i).Name)
		}
	}
	out := reflect.ValueOf(options(in))
	for i := 0; i < src.NumField(); i++ {
		name := src.Type().Field(i).Name
		got := out.FieldByName(name)
		if !got.IsValid() {
			t.Errorf("schema.ReadOptions has no %s", name)
			continue
		}
		a, b := src.Field(i), got
		if a.Kind() == reflect.Func {
			a, b = reflect.ValueOf(a.Pointer()), reflect.ValueOf(b.Pointer())
		}
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			t.Errorf("%s: %v, want %v", name, b, a)
		}
	}
}
