package natshost

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
)

// pacedArgs is the schema of a paced op's args (`host.sendQueue.submit` checks a send as that
// op's EngineCommand before it queues it, as the gateway's route would have): the op's branch of
// $defs/SessionCommand, compiled on its first use. The paced ops are $defs/PacedCommand's op enum
// (protocol PACED_OPS); nil for another op.
func (c *EventChecks) pacedArgs(op string) (*schemaNode, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if schema, ok := c.paced[op]; ok {
		return schema, nil
	}
	var doc struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(c.document, &doc); err != nil {
		return nil, err
	}
	var paced struct {
		Properties struct {
			Op struct {
				Enum []string `json:"enum"`
			} `json:"op"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(doc.Defs["PacedCommand"], &paced); err != nil || len(paced.Properties.Op.Enum) == 0 {
		return nil, fmt.Errorf("engine RPC schema: no $defs.PacedCommand op enum")
	}
	if !slices.Contains(paced.Properties.Op.Enum, op) {
		return nil, nil
	}
	union, err := decodeJSON(doc.Defs["SessionCommand"])
	if err != nil {
		return nil, err
	}
	args := commandArgsSchema(union, op)
	if args == nil {
		return nil, fmt.Errorf("engine RPC schema: SessionCommand has no args for %s", op)
	}
	compiler := &compiler{defs: doc.Defs, compiled: map[string]*schemaNode{}, patterns: map[string]*regexp.Regexp{}}
	schema, err := compiler.compile(args, "#/$defs/SessionCommand/"+op+"/args")
	if err != nil {
		return nil, err
	}
	if c.paced == nil {
		c.paced = map[string]*schemaNode{}
	}
	c.paced[op] = schema
	return schema, nil
}

// commandArgsSchema finds, in the union of commands (anyOf and oneOf nested), the args schema of
// the command whose op is `op`.
func commandArgsSchema(schema any, op string) any {
	node, ok := schema.(map[string]any)
	if !ok {
		return nil
	}
	if properties, ok := node["properties"].(map[string]any); ok {
		if opSchema, ok := properties["op"].(map[string]any); ok && opSchema["const"] == op {
			return properties["args"]
		}
	}
	for _, keyword := range []string{"anyOf", "oneOf"} {
		branches, _ := node[keyword].([]any)
		for _, branch := range branches {
			if found := commandArgsSchema(branch, op); found != nil {
				return found
			}
		}
	}
	return nil
}

// pacedCommandIssues: why a paced send's args are not its op's, each issue with its path under
// `args.command.args`; nil when they are. An op that is not paced is one issue on `command.op`.
func (c *EventChecks) pacedCommandIssues(op string, args json.RawMessage) ([]eventIssue, error) {
	schema, err := c.pacedArgs(op)
	if err != nil {
		return nil, err
	}
	if schema == nil {
		return []eventIssue{{Path: "args.command.op", Message: fmt.Sprintf("%q is not a paced send: one of the PacedCommand ops (send.text, send.media, ...)", op)}}, nil
	}
	value, err := decodeJSON(args)
	if err != nil {
		return []eventIssue{{Path: "args.command.args", Message: "not JSON: " + err.Error()}}, nil
	}
	return schema.check(value, []string{"args", "command", "args"}, nil), nil
}
