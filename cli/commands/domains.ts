import type { Command } from 'commander'
import type { Domain } from '../../sdk/types.js'
import { action, addCommand, type CliContext } from '../context.js'

/** `svc domains add|verify|list|remove`: custom hostnames, verified by a DNS TXT record. */
export function registerDomains(program: Command, ctx: CliContext) {
  const domains = program.command('domains').description("an API's custom domains")

  addCommand(domains, 'add', 'add a custom domain; prints the DNS records to create')
    .argument('<api-id>', 'the API id')
    .argument('<hostname>', 'e.g. api.example.com')
    .action(
      action(ctx, async (call, apiId, hostname) => {
        const domain = await call.client().domains.add(apiId!, hostname!)
        if (call.out.isJson) return call.out.json(domain)
        const { type, name, value } = domain.verification_record
        call.out.line(`added ${domain.hostname} (${domain.id}), pending. Create these DNS records:`)
        call.out.line()
        call.out.table(
          ['TYPE', 'NAME', 'VALUE'],
          [
            [type, name, value],
            ['CNAME', domain.hostname, domain.cname_target],
          ],
          '',
        )
        call.out.line()
        call.out.line(`then run: svc domains verify ${domain.api_id} ${domain.id}`)
      }),
    )

  addCommand(domains, 'verify', 'look up the TXT record and verify the domain')
    .argument('<api-id>', 'the API id')
    .argument('<domain-id>', 'the domain id')
    .action(
      action(ctx, async (call, apiId, domainId) => {
        const result = await call.client().domains.verify(apiId!, domainId!)
        if (call.out.isJson) return call.out.json(result)
        const hostname = result.domain.hostname
        if (result.status === 'pending') call.out.line(`${hostname}: still pending: ${result.reason}`)
        else call.out.line(`${hostname}: ${call.out.green(result.status)}`)
      }),
    )

  addCommand(domains, 'list', "an API's custom domains")
    .argument('<api-id>', 'the API id')
    .action(
      action(ctx, async (call, apiId) => {
        const list = await call.client().domains.list(apiId!)
        if (call.out.isJson) return call.out.json({ domains: list })
        call.out.table(
          ['ID', 'HOSTNAME', 'STATUS', 'TXT NAME', 'TXT VALUE', 'VERIFIED'],
          list.map(domainRow),
          'no custom domains',
        )
      }),
    )

  addCommand(domains, 'remove', 'remove a custom domain; the gateway stops serving it')
    .argument('<api-id>', 'the API id')
    .argument('<domain-id>', 'the domain id')
    .action(
      action(ctx, async (call, apiId, domainId) => {
        const result = await call.client().domains.delete(apiId!, domainId!)
        if (call.out.isJson) return call.out.json(result)
        call.out.line(`removed domain ${result.id}`)
      }),
    )
}

function domainRow(d: Domain) {
  return [d.id, d.hostname, d.status, d.verification_record.name, d.verification_record.value, d.verified_at]
}
