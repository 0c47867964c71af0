/** Help text of the keys, accounts, usage and requests commands (kept apart so `serve` does not load them). */
export const ADMIN_USAGE = `Keys, accounts, usage and the request record (same store as the gateway; --json for scripts):
  switchyard accounts create ID [--balance USD] [--name TEXT] [--models a,b] [--budgets 200/month,10/day]
  switchyard accounts list | show ID | ledger ID
  switchyard accounts topup ID USD --reason TEXT
  switchyard accounts adjust ID ±USD --reason TEXT
  switchyard accounts set ID [--models a,b|all] [--streaming on|off] [--max-effort none|minimal|low|medium|high|xhigh|max] [--rpm N] [--rps N] [--tpm N] [--bodies on|off]
      [--budgets LIMIT/PERIOD,…|none]
  switchyard keys create --account ID [--name TEXT] [--spend-limit USD] [--models a,b] [--rpm N] [--rps N] [--tpm N]
      [--budgets 200/month] [--end-user-budgets 10/day]     (PERIOD: day, week or month)
      [--expires-at TIME | --expires-in DURATION]          (DURATION: 90s, 15m, 1h, 30d)
  switchyard keys list [--prefix P] [--account ID] [--all] | show KEY
  switchyard keys block|unblock|revoke|delete KEY        (KEY: key id or a unique prefix)
  switchyard keys set KEY [--spend-limit USD|none] [--models a,b|all] [--name TEXT] [--rpm N] [--rps N] [--tpm N] [--bodies on|off]
      [--budgets LIMIT/PERIOD,…|none] [--end-user-budgets LIMIT/PERIOD,…|none] [--expires-at TIME|never | --expires-in DURATION]
  switchyard keys rotate KEY [--grace DURATION]          (new secret; the old one works for the grace, default 1h)
  switchyard keys end-users KEY [--limit N]              (each end user's windows of the key's end-user budgets)
  switchyard usage [--key KEY] [--account ID] [--end-user U] [--group-by end_user] [--model M] [--from TIME] [--to TIME] [--limit N]
  switchyard requests [--status 4xx|404] [--error-code C] [--model M] [--key KEY_ID] [--account ID] [--end-user U]
                      [--node N] [--door chat|messages|responses] [--since 1h | --from TIME] [--to TIME] [--limit N] [--cursor C]
  switchyard requests show REQUEST_ID                     (the record, its attempts as a timeline)
Where: --config FILE ($SWITCHYARD_CONFIG; none: the demo's store), --store URL,
  --url URL --admin-key KEY ($SWITCHYARD_URL, $SWITCHYARD_ADMIN_KEY) to go through a running gateway.
`;
