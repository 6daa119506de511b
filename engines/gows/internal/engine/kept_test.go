package engine

import "testing"

func TestKeptByIDForgetsTheOldestPastItsLimit(t *testing.T) {
	var kept keptByID[int]
	for i, id := range []string{"a", "b", "c"} {
		kept.put(id, i, 2)
	}
	kept.put("b", 10, 2) // replacing a kept value does not make it newer
	if _, ok := kept.get("a"); ok {
		t.Error("a, the oldest of three with a limit of 2, is still kept")
	}
	if v, ok := kept.get("b"); !ok || v != 10 {
		t.Errorf("b = %v, %v; want 10, true", v, ok)
	}
	kept.put("d", 3, 2)
	if _, ok := kept.get("b"); ok {
		t.Error("b is still kept after d came in: it was the oldest")
	}
	if v, ok := kept.get("c"); !ok || v != 2 {
		t.Errorf("c = %v, %v; want 2, true", v, ok)
	}
}
