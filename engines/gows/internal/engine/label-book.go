package engine

import (
	"slices"
	"sort"
	"strconv"
)

// The account's labels and the chats that carry each (WhatsApp Business), as the app state told
// them. whatsmeow keeps none, and fetches only the patches newer than the version it stored, so a
// restarted engine would not hear of older labels again: the book is kept with the auth state
// (one entry, type `labelbook`), and a logout clears it with everything else.

const labelBookType, labelBookID = "labelbook", "book"

// labelPalette: the messaging app's 20 label colours, by the index a label's colour is
// (protocol/src/label.ts, labelColorHex).
var labelPalette = []string{
	"#ff9484", "#64c4ff", "#fed428", "#dfaef0", "#9ab6c1", "#56ccb4", "#fe9dfe", "#d3a91f", "#6f7bcf", "#d8e651",
	"#01d0e2", "#ffc5c7", "#92ceac", "#f64847", "#00a1f2", "#83e421", "#ffae07", "#b4ebff", "#9ba6ff", "#9568cf",
}

type labelEntry struct {
	Name  string `json:"name"`
	Color int32  `json:"color"`
}

type labelBook struct {
	Labels map[string]labelEntry `json:"labels"`
	// Chats: the chat ids carrying each label, by label id.
	Chats map[string][]string `json:"chats"`
}

// labelRecord is spec 2.9's label.
func labelRecord(id string, entry labelEntry) map[string]any {
	n := int32(len(labelPalette))
	return map[string]any{"id": id, "name": entry.Name, "color": entry.Color, "colorHex": labelPalette[((entry.Color%n)+n)%n]}
}

// record is the label as it is now, nil when the book does not know it.
func (b *labelBook) record(id string) map[string]any {
	entry, ok := b.Labels[id]
	if !ok {
		return nil
	}
	return labelRecord(id, entry)
}

// ids: numbers in their order, then the rest (as the app numbers them, and as NOWEB lists them).
func (b *labelBook) ids() []string {
	ids := make([]string, 0, len(b.Labels))
	for id := range b.Labels {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, errA := strconv.Atoi(ids[i])
		c, errC := strconv.Atoi(ids[j])
		if errA == nil && errC == nil && a != c {
			return a < c
		}
		return ids[i] < ids[j]
	})
	return ids
}

// nextID: the number after the highest, as the app numbers new labels.
func (b *labelBook) nextID() string {
	highest := 0
	for id := range b.Labels {
		if n, err := strconv.Atoi(id); err == nil && n > highest {
			highest = n
		}
	}
	return strconv.Itoa(highest + 1)
}

func (b *labelBook) list() []any {
	out := []any{}
	for _, id := range b.ids() {
		out = append(out, b.record(id))
	}
	return out
}

func (b *labelBook) labelsOf(chatID string) []any {
	out := []any{}
	for _, id := range b.ids() {
		if slices.Contains(b.Chats[id], chatID) {
			out = append(out, b.record(id))
		}
	}
	return out
}

// The changes answer their event's payload, nil when the book had it so already.

// upsert: `label.upsert`'s payload.
func (b *labelBook) upsert(id, name string, color int32) map[string]any {
	entry := labelEntry{Name: name, Color: color}
	if known, ok := b.Labels[id]; ok && known == entry {
		return nil
	}
	b.Labels[id] = entry
	return labelRecord(id, entry)
}

// remove: `label.deleted`'s payload (the label with an empty name); the chats lose it too.
func (b *labelBook) remove(id string) map[string]any {
	known, ok := b.Labels[id]
	if !ok {
		return nil
	}
	delete(b.Labels, id)
	delete(b.Chats, id)
	return labelRecord(id, labelEntry{Color: known.Color})
}

// associate: the payload of `label.chat.added` or `label.chat.deleted`.
func (b *labelBook) associate(labelID, chatID string, on bool) map[string]any {
	chats := b.Chats[labelID]
	if slices.Contains(chats, chatID) == on {
		return nil
	}
	if on {
		chats = append(chats, chatID)
		sort.Strings(chats)
	} else {
		chats = slices.DeleteFunc(chats, func(c string) bool { return c == chatID })
	}
	if len(chats) == 0 {
		delete(b.Chats, labelID)
	} else {
		b.Chats[labelID] = chats
	}
	var label any
	if record := b.record(labelID); record != nil {
		label = record
	}
	return map[string]any{"labelId": labelID, "chatId": chatID, "label": label}
}
