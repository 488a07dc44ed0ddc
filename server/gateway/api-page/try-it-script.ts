/**
 * The API page's one script (inlined; its hash is in the page's Content-Security-Policy). Each try-it form builds
 * its request from its fields (path parameters percent-encoded, the query string as typed) and shows it; sending a
 * GET navigates to its URL, where the gateway answers the browser with its paywall (the 402 page that pays and
 * shows the answer); any other method navigates to the paywall page of that request (`/__svc/try-it`, see
 * try-it-route.ts), which sends it with its JSON body once paid. Plain ES2020 for any current browser, written as text: it never passes through a bundler.
 */
export const tryItScript = `(() => {
  'use strict'
  // The direct URL's /gateway/{host} before the gateway's own paths ('' on a gateway host).
  const base = document.body.dataset.base || ''
  const encodeValue = (value, catchAll) =>
    catchAll ? value.split('/').map(encodeURIComponent).join('/') : encodeURIComponent(value)

  function requestOf(form) {
    const catchAll = form.dataset.catchAll || ''
    let missing = null
    const path = form.dataset.template.replace(/\\{([A-Za-z_][A-Za-z0-9_]*)\\}/g, (whole, name) => {
      const input = form.querySelector('[data-param="' + name + '"]')
      const value = input ? input.value : ''
      if (value === '' && name !== catchAll && !missing) missing = input
      return value === '' && name !== catchAll ? whole : encodeValue(value, name === catchAll)
    })
    const queryInput = form.querySelector('[data-testid="try-it-query"]')
    const query = queryInput ? queryInput.value.trim().replace(/^\\?/, '') : ''
    const bodyInput = form.querySelector('[data-testid="try-it-body"]')
    return {
      method: form.dataset.method,
      url: location.origin + base + path + (query ? '?' + query : ''),
      body: bodyInput ? bodyInput.value : undefined,
      missing,
    }
  }

  for (const form of document.querySelectorAll('form[data-testid="try-it"]')) {
    const output = form.querySelector('[data-testid="try-it-request"]')
    const error = form.querySelector('[data-testid="try-it-error"]')
    const fail = (message) => {
      error.textContent = message
      error.hidden = false
    }
    const show = () => {
      const request = requestOf(form)
      output.textContent = request.method + ' ' + request.url
    }
    form.addEventListener('input', show)
    show()
    form.addEventListener('submit', (event) => {
      event.preventDefault()
      error.hidden = true
      const request = requestOf(form)
      if (request.missing) {
        fail('Fill in ' + request.missing.name + ' first.')
        request.missing.focus()
        return
      }
      if (request.body !== undefined && request.body.trim() !== '') {
        try {
          JSON.parse(request.body)
        } catch (problem) {
          fail('The body is not JSON: ' + problem.message)
          return
        }
      }
      if (request.method === 'GET') {
        location.assign(request.url)
        return
      }
      // Any other method: the paywall page of this request, which sends it with its body once paid.
      const handOff = new URLSearchParams({ method: request.method, resource: request.url.slice((location.origin + base).length) })
      if (request.body !== undefined && request.body.trim() !== '') handOff.set('body', request.body)
      location.assign(base + '/__svc/try-it?' + handOff)
    })
  }
})()
`
