/** Help text of the keys, accounts and usage commands (kept apart so `serve` does not load them). */
export const ADMIN_USAGE = `Keys, accounts and usage (same store as the gateway; --json for scripts):
  switchyard accounts create ID [--balance USD] [--name TEXT] [--models a,b] [--budgets 200/month,10/day]
  switchyard accounts list | show ID | ledger ID
  switchyard accounts topup ID USD --reason TEXT
  switchyard accounts adjust ID ±USD --reason TEXT
  switchyard accounts set ID [--models a,b|all] [--streaming on|off] [--max-effort none|minimal|low|medium|high|xhigh|max] [--rpm N] [--rps N] [--tpm N] [--budgets LIMIT/PERIOD,…|none]
  switchyard keys create --account ID [--name TEXT] [--spend-limit USD] [--models a,b] [--rpm N] [--rps N] [--tpm N]
      [--budgets 200/month] [--end-user-budgets 10/day]     (PERIOD: day, week or month)
  switchyard keys list [--prefix P] [--account ID] [--all] | show KEY
  switchyard keys block|unblock|revoke|delete KEY        (KEY: key id or a unique prefix)
  switchyard keys set KEY [--spend-limit USD|none] [--models a,b|all] [--name TEXT] [--rpm N] [--rps N] [--tpm N]
      [--budgets LIMIT/PERIOD,…|none] [--end-user-budgets LIMIT/PERIOD,…|none]
  switchyard usage [--key KEY] [--account ID] [--model M] [--from TIME] [--to TIME] [--limit N]
Where: --config FILE ($SWITCHYARD_CONFIG; none: the demo's store), --store URL,
  --url URL --admin-key KEY ($SWITCHYARD_URL, $SWITCHYARD_ADMIN_KEY) to go through a running gateway.
`;
