/** Help text of the keys, accounts and usage commands (kept apart so `serve` does not load them). */
export const ADMIN_USAGE = `Keys, accounts and usage (same store as the gateway; --json for scripts):
  switchyard accounts create ID [--balance USD] [--name TEXT] [--models a,b]
  switchyard accounts list | show ID | ledger ID
  switchyard accounts topup ID USD --reason TEXT
  switchyard accounts adjust ID ±USD --reason TEXT
  switchyard accounts set ID [--models a,b|all] [--streaming on|off] [--max-effort none|minimal|low|medium|high|xhigh|max] [--rpm N] [--rps N] [--tpm N]
  switchyard keys create --account ID [--name TEXT] [--spend-limit USD] [--models a,b] [--rpm N] [--rps N] [--tpm N]
        [--expires-at TIME | --expires-in DURATION]          (DURATION: 90s, 15m, 1h, 30d)
  switchyard keys list [--prefix P] [--account ID] [--all] | show KEY
  switchyard keys block|unblock|revoke|delete KEY        (KEY: key id or a unique prefix)
  switchyard keys set KEY [--spend-limit USD|none] [--models a,b|all] [--name TEXT] [--rpm N] [--rps N] [--tpm N]
        [--expires-at TIME|never | --expires-in DURATION]
  switchyard keys rotate KEY [--grace DURATION]          (new secret; the old one works for the grace, default 1h)
  switchyard usage [--key KEY] [--account ID] [--end-user U] [--group-by end_user] [--model M] [--from TIME] [--to TIME] [--limit N]
Where: --config FILE ($SWITCHYARD_CONFIG; none: the demo's store), --store URL,
  --url URL --admin-key KEY ($SWITCHYARD_URL, $SWITCHYARD_ADMIN_KEY) to go through a running gateway.
`;
