/* For running the Windows builds under wine 8 (Debian 12), which lacks bcryptprimitives.dll:
 * Rust's standard library (1.78 on) takes its random seeds from ProcessPrng there, as Windows 10
 * and later provide it. This stand-in gives the same bytes source wine has, RtlGenRandom
 * (advapi32's SystemFunction036). Used by .ci/release only; never shipped. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
