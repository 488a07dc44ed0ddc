/**
 * The upstream's answer on the page: JSON pretty-printed, an image as an image, HTML in a sandboxed frame (no
 * scripts), anything else as text.
 */
export async function showAnswer(container: HTMLElement, response: Response): Promise<void> {
  container.replaceChildren()
  const type = response.headers.get('content-type') ?? ''
  if (type.startsWith('image/')) {
    const image = document.createElement('img')
    image.src = URL.createObjectURL(await response.blob())
    image.alt = 'The image the API answered'
    container.append(image)
    return
  }
  const text = await response.text()
  if (type.includes('text/html')) {
    const frame = document.createElement('iframe')
    frame.setAttribute('sandbox', '')
    frame.title = 'The page the API answered'
    frame.srcdoc = text
    container.append(frame)
    return
  }
  const pre = document.createElement('pre')
  pre.tabIndex = 0
  let shown = text
  if (type.includes('json') || /^\s*[[{]/.test(text)) {
    try {
      shown = JSON.stringify(JSON.parse(text), null, 2)
    } catch {
      shown = text
    }
  }
  pre.textContent = shown
  container.append(pre)
}
