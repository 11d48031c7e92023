import type { Asset } from './static';

/**
 * The project's icon at /favicon.ico (browsers ask for it on every page of this server): an
 * ICO of two PNGs, 16 and 32 px, drawn from this SVG with Chromium. Kept in the source, so it
 * reaches dist/ and the Docker image with the code that serves it.
 *
 * <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0f766e"/><g stroke="#fff" stroke-width="3" stroke-linecap="round"><path d="M7 13v6"/><path d="M12.5 9v14"/><path d="M18 5v22"/><path d="M23.5 10v12"/></g></svg>
 */
export const faviconAsset: Asset = {
  bytes: Buffer.from(
    'AAABAAIAEBAAAAEAIACmAQAAJgAAACAgAAABACAAagIAAMwBAACJUE5HDQoaCgAAAA1JSERSAAAAEAAAABAIBgAAAB/z/2EAAAFbSURBVHicpFM9SwNBEH2zOT/RED8QGyWKEKxExEbEJoWlhb2NoEGICGrAQkSsTBOwEcTCIoWNEH9AQESshIiNRASRWCoGTaJ3OW/dLFxM7iMQ82CY4e3O27fsrAKAvJurKwSEOHiAiJpQA5zzIogeOeH4c/8gRt5IeI1AMbcGX1u7zNmvgoOascWEgRBqIL6wKMMZFGLCk99KK4xhwNdlWpbhBMH2M3HnFuvCRnAWyfC6rSE6N4/JQf/f+aKXVW4Y6ukt130dnTaBpakZBAOjVVxZYHp4BKnItsz1gKFBNCygmEVOU6ty3Q5uXzIYj+7J/C8HJTy9vcqcV1XkNc22+ej6Esn0vbuAicOrCyTuUjY+cn5m40qT+GwldcNAJvsu60JRk+EEMYlphROdiJ+4Axcsn8bdlkDgCY86NnHT2kweoSaGn7rJ8rTfelFGxam6cP0guuMfuZ/dXwAAAP//rjg/wQAAAAZJREFUAwCHxXIWuFUfYgAAAABJRU5ErkJggolQTkcNChoKAAAADUlIRFIAAAAgAAAAIAgGAAAAc3p69AAAAh9JREFUeJzsl99LFFEUx7/n7gxbyJoRGVpgQQURCwYt2I+X6CGql4KiINpe9CEK2SDIfyEqkq1H6WFBEIooKOylx+2HBQ2YFSb4oAiuL6IPsq7O9dyrKwqje3dmdnzxA4dzLnfuPV9m7pmZY2EtmUxDvb34gKM2tlYiakQISCkL7By2bzOl2HN0d0+X56gc1D+6fxGSegjUjBoiISdAsn3m8cv+VQGc/AJJ8QkRIsm9pETQrq67u6VrD7GSJvjk/NFj2n8e/mu8Rt+JkpW0pGvdCZL88vEketPtOr6V68HHoUGjdepRS3shLVhKGwKQbD7gGRvBuS1CMAFBULkFiFpMF+ypq0M6dUr7cBRQi6jm+ncd95C9dlP7SpiKrUpAsmn/Or8ZpmIt1AhTsRsK8FPbfvAU4Le2/eB5BgLVdhgComRbwLYAzzIcLkx6xpEJ6P8ziM43fatx5ALmSiXkfnxFFNTsDPyfKqzzG1HVx0htdmRvY8VNFR19OZw5dBj50RGEJsB0U4UzPqatEpYEJvnXaB8MMN3UFJWbz4B0sGVIR9Byy+SbIO8MlZt2dGUOxhfdXzxqgA922jaut57U8Wvnpy5hIySmizFxQrdmiYedV4XAW0SI6+LK7NPs+5gazH/5/i9+NjXA4TnuWBKoISvN6Y3ZJy8+qHGsPFHMD4wUU6dfxYU7r4ZsCW7PQ2kAVtrzPFsvt+e3i8+yv8tzSwAAAP//3cDytgAAAAZJREFUAwDmEMCL6MBbHAAAAABJRU5ErkJggg==',
    'base64',
  ),
  type: 'image/x-icon',
};
