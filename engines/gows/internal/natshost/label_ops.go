package natshost

import (
	"context"
	"slices"

	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// labelChange: a label's id and new name and colour as updateLabel's params, as engine-pod's dispatch sends them.
func labelChange(_ context.Context, args rpcschema.ArgsLabelsUpdate) (any, error) {
	return rpcschema.ParamsUpdateLabel{ID: args.ID, Name: args.Label.Name, Color: args.Label.Color}, nil
}

// chatLabelIDs: the chat's labels from now on as setChatLabels's params, each id once.
func chatLabelIDs(_ context.Context, args rpcschema.ArgsLabelsSetForChat) (any, error) {
	ids := make([]string, 0, len(args.Labels))
	for _, label := range args.Labels {
		if !slices.Contains(ids, label.ID) {
			ids = append(ids, label.ID)
		}
	}
	return rpcschema.ParamsSetChatLabels{ChatID: args.ChatID, LabelIDs: ids}, nil
}
