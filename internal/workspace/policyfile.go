package workspace

// userPolicy is the policy.yaml Init writes: no rules, a header saying
// how to add them. The empty sections keep the header in place when
// parallax policy add edits the file (it keeps comments attached to
// keys), and they load as an empty policy.
const userPolicy = `# User rules of this workspace (tier 0), layered over the base policy that
# config.yaml names (a preset: default, permissive or strict).
#
# Evaluation: every deny rule first (the preset's, ~/.parallax/policy.yaml's,
# then this file's); then the highest tier of every matching verify rule;
# then the allow rules. A rule here can add a denial or raise a tier; it
# cannot lift a deny or lower a tier the preset sets: to relax, choose
# another preset in config.yaml.
#
# Add rules with the CLI, which checks that the result loads and keeps
# this header:
#
#   parallax policy add --name no_prod --section deny --path '/srv/prod/**' --reason 'production data'
#   parallax policy add --name vendor_api --section verify --type http_request --domain api.vendor.test --tier 1
#
# or by hand, in this format (then check it with parallax doctor):
#
#   deny:
#     - name: no_prod                  # unique; letters, digits, _ . -
#       action_types: [read_file, write_file, "git_*"]   # omitted: every type
#       paths: ["/srv/prod/**"]        # doublestar globs; ~, $HOME, $WORKSPACE expand
#       reason: production data        # shown to the agent
#   verify:
#     - name: vendor_api
#       action_types: [http_request]
#       domains: [api.vendor.test]
#       tier: 1                        # 1 heuristics, 2 LLM judge, 3 human
#
# Other conditions: paths_outside, access, commands, programs, subcommands,
# capabilities, methods, recursive (see parallax policy --help).
# parallax policy list shows every rule in effect and where it comes from.

deny:
verify:
allow:
`
